/* The teleop arm chain's own arithmetic in C: the clutch target with its Cartesian fast path,
 * and the joint limiter. Placo's calls stay in Python (mjscope.teleop.native_chain drives it).
 *
 * Each function is pure: it reads the arm's constants from a "plan" (a float64 array built
 * once per arm, passed by its address) and the state as Python floats, and returns new Python
 * floats; Python keeps the state, so the compiled and the Python path can take turns on the
 * same arm. Every operation is the Python code's (teleop/clutch.py, limits.py, poses.py,
 * ik.py, joint_limits.py), in the same order; built with -ffp-contract=off the results are Python's
 * bit for bit (tested on recorded sessions). Where Python's own math.hypot could round
 * differently from the C library's, a comparison within a few ulps is left to Python.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* target plan slots (float64), native_chain.TARGET_SLOTS names them */
enum {
  T_SCALE, T_X0, T_Y0, T_Z0, T_X1, T_Y1, T_Z1, T_LOW_R, T_LOW_H, T_R, T_AX, T_AY,
  T_MAX_STEP, T_MAX_TURN, T_SLOTS
};
/* joint plan: a head, then per joint JROW constants (joint_limits.JointLimiter's rows) */
enum { J_N, J_DT, J_INV_DT, J_C, J_HALF, J_HEAD };
enum { R_LO_SAFE, R_UP_SAFE, R_VM, R_NVM, R_DV, R_LO, R_UP, R_AM, R_K, R_FAR, JROW };
#define MAXJ 32

static int floats(PyObject *seq, double *out, Py_ssize_t n) {
  if (!PyList_CheckExact(seq) || PyList_GET_SIZE(seq) != n) {
    PyErr_Format(PyExc_TypeError, "expected a list of %zd floats", n);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PyList_GET_ITEM(seq, i);
    out[i] = PyFloat_CheckExact(o) ? PyFloat_AS_DOUBLE(o) : PyFloat_AsDouble(o);
    if (out[i] == -1.0 && PyErr_Occurred()) return -1;
  }
  return 0;
}

static PyObject *to_list(const double *v, Py_ssize_t n) {
  PyObject *out = PyList_New(n);
  if (out == NULL) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *f = PyFloat_FromDouble(v[i]);
    if (f == NULL) {
      Py_DECREF(out);
      return NULL;
    }
    PyList_SET_ITEM(out, i, f);
  }
  return out;
}

static const double *plan_at(PyObject *addr) {
  const double *p = (const double *)PyLong_AsVoidPtr(addr);
  if (p == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "null plan");
  return p;
}

/* Whether glibc's hypot and Python's math.hypot may disagree on hypot(dx, dy) >= r. */
static int near_r(double h, double r) { return fabs(h - r) <= 8.0 * DBL_EPSILON * fabs(r); }

/* target(plan, pose, anchors, p0, q0, T) -> (p, q, pq_bytes) | None
 *
 * pose: the controller's 7 floats (x, y, z, w, x, y, z); anchors: the clutch's
 * (ee p, ee q, ctrl p, ctrl q conjugate); p0, q0: the previous target; T: the address of the
 * IK task's target matrix (16 float64, row-major). Returns the clutch target as TeleopArm's
 * Python does (canonical_floats, Clutch.follow) when no Cartesian limit binds (and p + q as
 * float64 bytes, which the cycle's target array views), and writes its
 * T_world_ee (floats_to_flat) at T; None when a limit may bind (Python then runs
 * CartesianLimiter.limit_floats, whose fast path this is, and nothing is written). */
/* The clutch target (p, q) and its flat matrix T when no Cartesian limit binds: 1; else 0
 * (a limit may bind: nothing is written). The C API's target (shared with _armstep.c). */
static int target_core(const double *P, const double *pose, const double *ep, const double *eq,
                       const double *cp, const double *ci, const double *p0, const double *q0,
                       double *p, double *q, double *out_T) {
  /* canonical_floats(pose[3:7]) */
  double w = pose[3], x = pose[4], y = pose[5], z = pose[6];
  double n = sqrt(w * w + x * x + y * y + z * z);
  n = w < 0.0 ? -n : n;
  double aw = w / n, ax = x / n, ay = y / n, az = z / n;
  /* Clutch.follow */
  double s = P[T_SCALE];
  p[0] = ep[0] + s * (pose[0] - cp[0]);
  p[1] = ep[1] + s * (pose[1] - cp[1]);
  p[2] = ep[2] + s * (pose[2] - cp[2]);
  double cw = ci[0], cx = ci[1], cy = ci[2], cz = ci[3];
  double bw = eq[0], bx = eq[1], by = eq[2], bz = eq[3];
  double dw = aw * cw - ax * cx - ay * cy - az * cz;
  double dx = aw * cx + ax * cw + ay * cz - az * cy;
  double dy = aw * cy - ax * cz + ay * cw + az * cx;
  double dz = aw * cz + ax * cy - ay * cx + az * cw;
  double qw = dw * bw - dx * bx - dy * by - dz * bz;
  double qx = dw * bx + dx * bw + dy * bz - dz * by;
  double qy = dw * by - dx * bz + dy * bw + dz * bx;
  double qz = dw * bz + dx * by - dy * bx + dz * bw;
  n = sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
  n = qw < 0.0 ? -n : n;
  q[0] = qw / n, q[1] = qx / n, q[2] = qy / n, q[3] = qz / n;
  /* CartesianLimiter.limit_floats: its fast path's tests */
  double X = p[0], Y = p[1], Z = p[2];
  if (!(P[T_X0] <= X && X <= P[T_X1] && P[T_Y0] <= Y && Y <= P[T_Y1] && P[T_Z0] <= Z &&
        Z <= P[T_Z1]))
    return 0;
  double r_need = (Z < P[T_LOW_H] && P[T_LOW_R] > P[T_R]) ? P[T_LOW_R] : P[T_R];
  double h = hypot(X - P[T_AX], Y - P[T_AY]);
  if (!(h >= r_need) || near_r(h, r_need)) return 0;
  double ddx = X - p0[0], ddy = Y - p0[1], ddz = Z - p0[2];
  double dot = fabs(q0[0] * q[0] + q0[1] * q[1] + q0[2] * q[2] + q0[3] * q[3]);
  if (!(sqrt(ddx * ddx + ddy * ddy + ddz * ddz) <= P[T_MAX_STEP])) return 0;
  if (!(2.0 * acos(dot < 1.0 ? dot : 1.0) <= P[T_MAX_TURN])) return 0;
  /* poses.floats_to_flat */
  w = q[0], x = q[1], y = q[2], z = q[3];
  const double T[16] = {
      1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), X,
      2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), Y,
      2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), Z,
      0.0, 0.0, 0.0, 1.0,
  };
  memcpy(out_T, T, sizeof T);
  return 1;
}

/* target(plan, pose, anchors, p0, q0, T) -> (p, q, pq_bytes) | None
 *
 * pose: the controller's 7 floats (x, y, z, w, x, y, z); anchors: the clutch's
 * (ee p, ee q, ctrl p, ctrl q conjugate); p0, q0: the previous target; T: the address of the
 * IK task's target matrix (16 float64, row-major). Returns the clutch target as TeleopArm's
 * Python does (canonical_floats, Clutch.follow) when no Cartesian limit binds (and p + q as
 * float64 bytes, which the cycle's target array views), and writes its
 * T_world_ee (floats_to_flat) at T; None when a limit may bind (Python then runs
 * CartesianLimiter.limit_floats, whose fast path this is, and nothing is written). */
static PyObject *target(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "target(plan, pose, anchors, p0, q0, T)");
    return NULL;
  }
  const double *P = plan_at(args[0]);
  double *out_T = (double *)plan_at(args[5]);
  if (P == NULL || out_T == NULL) return NULL;
  double pose[7], ep[3], eq[4], cp[3], ci[4], p0[3], q0[4];
  PyObject *an = args[2];
  if (!PyTuple_CheckExact(an) || PyTuple_GET_SIZE(an) != 4) {
    PyErr_SetString(PyExc_TypeError, "anchors: a tuple of 4 lists");
    return NULL;
  }
  if (floats(args[1], pose, 7) || floats(PyTuple_GET_ITEM(an, 0), ep, 3) ||
      floats(PyTuple_GET_ITEM(an, 1), eq, 4) || floats(PyTuple_GET_ITEM(an, 2), cp, 3) ||
      floats(PyTuple_GET_ITEM(an, 3), ci, 4) || floats(args[3], p0, 3) || floats(args[4], q0, 4))
    return NULL;
  double pq[7], T[16];
  if (!target_core(P, pose, ep, eq, cp, ci, p0, q0, pq, pq + 3, T)) Py_RETURN_NONE;
  PyObject *lp = to_list(pq, 3), *lq = to_list(pq + 3, 4);
  PyObject *raw = PyBytes_FromStringAndSize((const char *)pq, sizeof pq);
  PyObject *out = (lp && lq && raw) ? PyTuple_Pack(3, lp, lq, raw) : NULL;
  Py_XDECREF(lp);
  Py_XDECREF(lq);
  Py_XDECREF(raw);
  if (out != NULL) memcpy(out_T, T, sizeof T);
  return out;
}

/* JointLimiter.step on n doubles (n <= MAXJ: the caller checks): q_new, v_new into qs, vs;
 * returns the bits of joint_step. The C API's joint step (shared with _armstep.c). */
static long joint_core(const double *P, Py_ssize_t n, const double *ql, const double *vl,
                       const double *qd, double *qs, double *vs) {
  double dt = P[J_DT], inv_dt = P[J_INV_DT], c = P[J_C], half = P[J_HALF];
  long hit = 0, moving = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    const double *r = P + J_HEAD + JROW * i;
    double qi = ql[i], vi0 = vl[i], di = qd[i];
    double vm = r[R_VM], nvm = r[R_NVM], dv = r[R_DV];
    double v_des = (di - qi) * inv_dt;
    double a_lo = vi0 - dv, a_hi = vi0 + dv;
    double b_lo = a_lo >= nvm ? a_lo : nvm;
    double b_hi = a_hi <= vm ? a_hi : vm;
    double v;
    if (r[R_LO_SAFE] <= qi && qi <= r[R_UP_SAFE]) {
      v = v_des >= b_lo ? v_des : b_lo;
      v = v <= b_hi ? v : b_hi;
      if (v != v_des) hit |= (long)(v == vm || v == nvm) << 1 | (long)(v == a_lo || v == a_hi) << 2;
      qs[i] = qi + v * dt;
    } else {
      double lo = r[R_LO], up = r[R_UP], am = r[R_AM], k = r[R_K], far = r[R_FAR];
      double du = up - qi, dl = qi - lo;
      double cap_up = du >= far ? INFINITY : am * (sqrt(c + k * (du >= 0.0 ? du : 0.0)) - half);
      double cap_lo = dl >= far ? INFINITY : am * (sqrt(c + k * (dl >= 0.0 ? dl : 0.0)) - half);
      b_lo = b_lo >= -cap_lo ? b_lo : -cap_lo;
      b_hi = b_hi <= cap_up ? b_hi : cap_up;
      v = v_des >= b_lo ? v_des : b_lo;
      v = v <= b_hi ? v : b_hi;
      if (v != v_des)
        hit |= (long)(v == -cap_lo || v == cap_up) | (long)(fabs(v) == vm) << 1 |
               (long)(v == a_lo || v == a_hi) << 2;
      double qn = qi + v * dt;
      qn = qn >= lo ? qn : lo;
      qs[i] = qn <= up ? qn : up;
    }
    vs[i] = v;
    moving |= v != 0.0;
  }
  return hit | moving << 3;
}

/* joint_step(plan, q, v, q_des) -> (q_new, v_new, bits, q_bytes)
 *
 * JointLimiter.step on plain floats: bits 1 position, 2 speed, 4 acceleration (the binding
 * limits), 8 moving (any v_new nonzero); q_bytes: q_new as float64 bytes (immutable: the
 * read-only command array is a view of them). */
static PyObject *joint_step(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 4) {
    PyErr_SetString(PyExc_TypeError, "joint_step(plan, q, v, q_des)");
    return NULL;
  }
  const double *P = plan_at(args[0]);
  if (P == NULL) return NULL;
  Py_ssize_t n = (Py_ssize_t)P[J_N];
  if (n < 0 || n > MAXJ) {
    PyErr_SetString(PyExc_ValueError, "bad joint plan");
    return NULL;
  }
  double ql[MAXJ], vl[MAXJ], qd[MAXJ], qs[MAXJ], vs[MAXJ];
  if (floats(args[1], ql, n) || floats(args[2], vl, n) || floats(args[3], qd, n)) return NULL;
  long bits = joint_core(P, n, ql, vl, qd, qs, vs);
  PyObject *lq = to_list(qs, n), *lv = to_list(vs, n);
  PyObject *lbits = PyLong_FromLong(bits);
  PyObject *raw = PyBytes_FromStringAndSize((const char *)qs, n * (Py_ssize_t)sizeof(double));
  PyObject *out = (lq && lv && lbits && raw) ? PyTuple_Pack(4, lq, lv, lbits, raw) : NULL;
  Py_XDECREF(lq);
  Py_XDECREF(lv);
  Py_XDECREF(lbits);
  Py_XDECREF(raw);
  return out;
}

/* ArmIk._errors on Placo's transform T (16 float64, row-major) against the target t. */
static void errors_core(const double *T, const double *t, double *e) {
  double dx = T[3] - t[3], dy = T[7] - t[7], dz = T[11] - t[11];
  double tr = T[0] * t[0] + T[1] * t[1] + T[2] * t[2] + T[4] * t[4] + T[5] * t[5] +
              T[6] * t[6] + T[8] * t[8] + T[9] * t[9] + T[10] * t[10];
  e[0] = dx * dx + dy * dy + dz * dz;
  e[1] = 3.0 - tr;
}

/* ik_errors(T_now, T_target) -> (squared position error, 3 - tr(R_target^T R))
 *
 * ArmIk._errors: T_now is Placo's end-effector transform (a C-contiguous 4 x 4 float64
 * array), T_target the address of the task's target (16 float64, row-major). */
static PyObject *ik_errors(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "ik_errors(T_now, T_target)");
    return NULL;
  }
  const double *t = plan_at(args[1]);
  if (t == NULL) return NULL;
  Py_buffer b;
  if (PyObject_GetBuffer(args[0], &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
  if (b.len != 16 * (Py_ssize_t)sizeof(double) || b.format == NULL || strcmp(b.format, "d")) {
    PyBuffer_Release(&b);
    PyErr_SetString(PyExc_TypeError, "T_now: a 4 x 4 float64 array");
    return NULL;
  }
  double e[2];
  errors_core((const double *)b.buf, t, e);
  PyBuffer_Release(&b);
  return Py_BuildValue("(dd)", e[0], e[1]);
}

static PyObject *target_slots(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyLong_FromLong(T_SLOTS);
}

static PyObject *joint_layout(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return Py_BuildValue("(iii)", J_HEAD, JROW, MAXJ);
}

static PyMethodDef methods[] = {
    {"target", (PyCFunction)(void (*)(void))target, METH_FASTCALL,
     "The clutch target and its flat matrix when no Cartesian limit binds, else None."},
    {"ik_errors", (PyCFunction)(void (*)(void))ik_errors, METH_FASTCALL,
     "The IK's two errors of the end effector at T_now against the target."},
    {"joint_step", (PyCFunction)(void (*)(void))joint_step, METH_FASTCALL,
     "One joint-limited command: (q, v, bits)."},
    {"target_slots", target_slots, METH_NOARGS, "Slots of a target plan (a layout check)."},
    {"joint_layout", joint_layout, METH_NOARGS, "(head, per joint, max joints) of a plan."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_chain", "The teleop arm chain's arithmetic in C.", -1, methods,
};

/* The C API other extensions use, through the capsule _chain._C_API (chain_api.h): _armstep.c
 * calls these same functions. */
#include "chain_api.h"

static ChainApi api = {CHAIN_API_VERSION, target_core, joint_core, errors_core, MAXJ,
                       to_list};

PyMODINIT_FUNC PyInit__chain(void) {
  PyObject *m = PyModule_Create(&module);
  if (m == NULL) return NULL;
  PyObject *cap = PyCapsule_New(&api, "mjscope.teleop._chain._C_API", NULL);
  if (cap == NULL || PyModule_AddObject(m, "_C_API", cap) < 0) {
    Py_XDECREF(cap);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
