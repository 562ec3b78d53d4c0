/* The hqp law's per-period glue in C (mjscope.control.controllers.hqp_native wraps it): the
 * joint box and torque bounds, the stiffness adaptation, the level-1 task target, both levels'
 * QP assembly with daqp_quadprog, the torque tail and posture torque, and the momentum
 * observer's update and wrench solve. Python keeps HqpController.compute's dispatch and every
 * fallback (a level daqp does not solve reruns in Python from the start).
 *
 * Why a module of its own and not more of dock/_kernel.c: the law is the control package's
 * (the Python loop, the force loop and the compiled dock loop all call HqpController.compute),
 * so its C lives beside it and every caller gains; the kernel stays the loop.
 *
 * Bit identity with the Python law (hqp.py, hqp_limits.py, hqp_levels.py, hqp_adapt.py):
 *  - elementwise NumPy ufuncs and the Python-float loops become C scalar loops in the same
 *    order (built with -ffp-contract=off: no fused multiply-add); np.minimum / np.maximum keep
 *    NumPy's semantics (a NaN first operand wins, a tie returns the second operand), Python's
 *    min / max theirs (the first argument unless the other is strictly smaller / larger);
 *  - every matrix product, pin.log3 and the 3-vector dot stay the very NumPy / Pinocchio calls,
 *    made through the Python C API on the same objects;
 *  - dposv is scipy's cython_lapack routine (the one scipy.linalg.lapack.dposv runs), on an
 *    F-ordered copy of M as scipy's wrapper makes, uplo "U", its info ignored as in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

#define NV_MAX 16

typedef void (*dposv_fn)(char *uplo, int *n, int *nrhs, double *a, int *lda, double *b,
                         int *ldb, int *info);

static PyObject *s_dot, *s_T, *s_translation, *s_rotation, *s_pos, *s_rot, *s_vel, *s_acc,
    *s_V_d, *s_Vdot_d, *s_out, *s_copy, *s_q_last, *s_v_last, *s__C, *s__g, *tail3, *head3;

static inline double np_min(double a, double b) { return (isnan(a) || a < b) ? a : b; }
static inline double np_max(double a, double b) { return (isnan(a) || a > b) ? a : b; }
static inline double py_min(double a, double b) { return b < a ? b : a; }
static inline double py_max(double a, double b) { return b > a ? b : a; }

/* A float64 vector's data (contiguous) and length; 0 on success. */
static int vec(PyObject *o, Py_buffer *b, Py_ssize_t n, int writable) {
  int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(o, b, flags) != 0) return -1;
  if (b->itemsize != 8 || strcmp(b->format, "d") != 0 || b->len != n * 8) {
    PyBuffer_Release(b);
    PyErr_SetString(PyExc_ValueError, "_hqp: float64 buffer of the wrong size");
    return -1;
  }
  return 0;
}

/* Copy a float64 vector of n (any stride) into out; 0 on success. */
static int read_vec(PyObject *o, Py_ssize_t n, double *out) {
  Py_buffer b;
  if (PyObject_GetBuffer(o, &b, PyBUF_RECORDS_RO) != 0) return -1;
  if (b.ndim != 1 || b.shape[0] != n || b.itemsize != 8 || strcmp(b.format, "d") != 0) {
    PyBuffer_Release(&b);
    PyErr_SetString(PyExc_ValueError, "_hqp: float64 vector of the wrong size");
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    out[i] = *(const double *)((const char *)b.buf + i * b.strides[0]);
  PyBuffer_Release(&b);
  return 0;
}

/* Copy a float64 vector of n that o.method(arg) returns (NULL arg: attribute o.method). */
static int call_vec(PyObject *o, PyObject *name, PyObject *arg, Py_ssize_t n, double *out) {
  PyObject *r = arg ? PyObject_CallMethodOneArg(o, name, arg) : PyObject_GetAttr(o, name);
  if (r == NULL) return -1;
  int rc = read_vec(r, n, out);
  Py_DECREF(r);
  return rc;
}

/* An (r, c) float64 matrix read with its strides into row-major out. */
static int read_mat(PyObject *o, Py_ssize_t r, Py_ssize_t c, double *out) {
  Py_buffer b;
  if (PyObject_GetBuffer(o, &b, PyBUF_RECORDS_RO) != 0) return -1;
  if (b.ndim != 2 || b.shape[0] != r || b.shape[1] != c || b.itemsize != 8 ||
      strcmp(b.format, "d") != 0) {
    PyBuffer_Release(&b);
    PyErr_SetString(PyExc_ValueError, "_hqp: float64 matrix of the wrong shape");
    return -1;
  }
  for (Py_ssize_t i = 0; i < r; i++)
    for (Py_ssize_t j = 0; j < c; j++)
      out[i * c + j] = *(const double *)((const char *)b.buf + i * b.strides[0] + j * b.strides[1]);
  PyBuffer_Release(&b);
  return 0;
}

/* bounds(P, q, v, h, JtF, tau_prev | None, bl, bu, shift): HqpLevels.write_bounds with
 * JointBox.write. P: [q_lim 2nv, far 2nv, v_max2 2nv, a_max2 2nv, two_ab 2nv, v_hi_dt nv,
 * v_lo_dt nv, tau_hi nv, tau_lo nv, dt, rate]; bl, bu: [x_lb; lb], [x_ub; ub] (2 nv). */
static PyObject *bounds(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 9) {
    PyErr_SetString(PyExc_TypeError, "bounds takes 9 arguments");
    return NULL;
  }
  Py_buffer pb, lb, ub, sb;
  Py_ssize_t nv = PyObject_Length(args[1]);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  int have_prev = args[5] != Py_None, got = 0;
  double q[NV_MAX], v[NV_MAX], h[NV_MAX], JtF[NV_MAX], prev[NV_MAX];
  PyObject *res = NULL;
  if (read_vec(args[1], nv, q) || read_vec(args[2], nv, v) || read_vec(args[3], nv, h) ||
      read_vec(args[4], nv, JtF) || (have_prev && read_vec(args[5], nv, prev)))
    return NULL;
  if (vec(args[0], &pb, 14 * nv + 2, 0)) goto done;
  got = 1;
  if (vec(args[6], &lb, 2 * nv, 1)) goto done;
  got = 2;
  if (vec(args[7], &ub, 2 * nv, 1)) goto done;
  got = 3;
  if (vec(args[8], &sb, nv, 1)) goto done;
  got = 4;
  {
    const double *P = pb.buf;
    const double *q_lim = P, *far = P + 2 * nv, *v_max2 = P + 4 * nv, *a_max2 = P + 6 * nv;
    const double *two_ab = P + 8 * nv, *v_hi_dt = P + 10 * nv, *v_lo_dt = P + 11 * nv;
    const double *tau_hi = P + 12 * nv, *tau_lo = P + 13 * nv;
    const double dt = P[14 * nv], rate = P[14 * nv + 1];
    double *x_lb = lb.buf, *x_ub = ub.buf, *lo_out = x_lb + nv, *hi_out = x_ub + nv;
    double *shift = sb.buf, dist[2 * NV_MAX];
    int near = 0;
    for (Py_ssize_t j = 0; j < nv; j++) {
      dist[j] = q_lim[j] - q[j];                        /* q_lim − (+1 · q) */
      dist[nv + j] = q_lim[nv + j] - (-1.0 * q[j]);     /* q_lim − (−1 · q) */
    }
    for (Py_ssize_t k = 0; k < 2 * nv; k++) near |= dist[k] <= far[k];
    if (!near) {
      for (Py_ssize_t j = 0; j < nv; j++) {
        double v_dt = v[j] / dt;
        double box_hi = v_hi_dt[j] - v_dt, box_lo = v_lo_dt[j] - v_dt;
        double xu = np_min(box_hi, a_max2[j]), xl = np_max(box_lo, a_max2[nv + j]);
        x_ub[j] = np_max(xu, box_lo);
        x_lb[j] = np_min(xl, box_hi);
      }
    } else {
      double a_v[2 * NV_MAX];
      for (int r = 0; r < 2; r++)
        for (Py_ssize_t j = 0; j < nv; j++) {
          Py_ssize_t k = r * nv + j;
          double reach = sqrt(two_ab[k] * np_max(dist[k], 0.0));
          reach = np_min(reach, v_max2[k]);
          reach = np_min(reach, dist[k] / dt);
          double a = (r == 0 ? 1.0 : -1.0) * reach;
          a -= v[j];
          a_v[k] = a / dt;
        }
      for (Py_ssize_t j = 0; j < nv; j++) {
        double hi_v = a_v[j], lo_v = np_min(a_v[nv + j], hi_v);
        x_ub[j] = np_max(np_min(a_max2[j], hi_v), lo_v);
        x_lb[j] = np_max(np_min(a_max2[nv + j], hi_v), lo_v);
      }
    }
    double step = 0.0;
    int use_rate = have_prev && isfinite(rate);
    if (use_rate) step = rate * dt;
    for (Py_ssize_t j = 0; j < nv; j++) {
      double hi = tau_hi[j], lo = tau_lo[j];
      if (use_rate) {
        hi = np_min(hi, prev[j] + step);
        lo = np_max(lo, prev[j] - step);
        lo = np_min(lo, hi);
      }
      double s = JtF[j] - h[j];
      shift[j] = s;
      lo_out[j] = lo + s;
      hi_out[j] = hi + s;
    }
  }
  res = Py_NewRef(Py_None);
done:
  if (got >= 4) PyBuffer_Release(&sb);
  if (got >= 3) PyBuffer_Release(&ub);
  if (got >= 2) PyBuffer_Release(&lb);
  if (got >= 1) PyBuffer_Release(&pb);
  return res;
}

/* adapt(P, F, kp, kd, nominal) -> nominal: StiffnessAdaptation.update. P: [dead 6, span 6,
 * k_nom 6, k_drop 6, kd_nom 6, kp_min 6, kp_max 6, alpha_soft, alpha_rest, k_tol]. */
static PyObject *adapt(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "adapt takes 5 arguments");
    return NULL;
  }
  int nominal = PyObject_IsTrue(args[4]);
  if (nominal < 0) return NULL;
  Py_buffer pb, kb, db;
  double F[6];
  if (read_vec(args[1], 6, F)) return NULL;
  if (vec(args[0], &pb, 45, 0)) return NULL;
  if (vec(args[2], &kb, 6, 1)) {
    PyBuffer_Release(&pb);
    return NULL;
  }
  if (vec(args[3], &db, 6, 1)) {
    PyBuffer_Release(&kb);
    PyBuffer_Release(&pb);
    return NULL;
  }
  const double *P = pb.buf;
  const double *dead = P, *span = P + 6, *k_nom = P + 12, *k_drop = P + 18, *kd_nom = P + 24;
  const double *kp_min = P + 30, *kp_max = P + 36;
  const double alpha_soft = P[42], alpha_rest = P[43], k_tol = P[44];
  double *kp = kb.buf, *kd = db.buf, load[6];
  int loaded = 0;
  for (int i = 0; i < 6; i++) {
    load[i] = fabs(F[i]) - dead[i];
    loaded |= load[i] > 0.0;
  }
  if (!(nominal && !loaded)) {
    int sigma_nz = 0, close = 1;
    for (int i = 0; i < 6; i++) {
      double s = load[i] / span[i];
      s = np_min(np_max(s, 0.0), 1.0);
      sigma_nz |= s != 0.0;
      double k_star = k_nom[i] - s * k_drop[i];
      double alpha = k_star < kp[i] ? alpha_soft : alpha_rest;
      k_star -= kp[i];
      k_star *= alpha;
      kp[i] += k_star;
      kp[i] = np_min(np_max(kp[i], kp_min[i]), kp_max[i]);
    }
    for (int i = 0; i < 6; i++) close &= fabs(kp[i] - k_nom[i]) <= k_tol;
    if (!sigma_nz && close) {
      for (int i = 0; i < 6; i++) kp[i] = k_nom[i];
      nominal = 1;
    } else {
      nominal = 0;
    }
    for (int i = 0; i < 6; i++) kd[i] = kd_nom[i] * sqrt(kp[i] / k_nom[i]);
  }
  PyBuffer_Release(&db);
  PyBuffer_Release(&kb);
  PyBuffer_Release(&pb);
  return PyBool_FromLong(nominal);
}

/* target(S, kd, kp, activation, objs, reference, oMf, J, dJ, M, F, JtF, v) -> activation:
 * HqpController._task_target into objs' out buffer; returns the new preload activation.
 * S: [dt, i_limit, ki 3, use_ki, preload_force, contact_threshold, alpha_soft];
 * objs: (log3, dposv capsule, integral (3,), out (6,), fpre (3,), y (nv,)). */
static PyObject *target(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 13) {
    PyErr_SetString(PyExc_TypeError, "target takes 13 arguments");
    return NULL;
  }
  PyObject *objs = args[4], *ref = args[5], *oMf = args[6], *J = args[7], *dJ = args[8];
  PyObject *M = args[9], *F = args[10], *JtF = args[11], *v = args[12];
  if (!PyTuple_Check(objs) || PyTuple_GET_SIZE(objs) != 6) {
    PyErr_SetString(PyExc_TypeError, "target: objs must be a 6-tuple");
    return NULL;
  }
  Py_ssize_t nv = PyObject_Length(v);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  double S[9], kd[6], kp[6];
  if (read_vec(args[0], 9, S) || read_vec(args[1], 6, kd) || read_vec(args[2], 6, kp))
    return NULL;
  const double dt = S[0], lim = S[1], *ki = S + 2;
  const int use_ki = S[5] != 0.0;
  const double preload = S[6], threshold = S[7], alpha_soft = S[8];
  double act = PyFloat_AsDouble(args[3]);
  if (act == -1.0 && PyErr_Occurred()) return NULL;
  PyObject *log3 = PyTuple_GET_ITEM(objs, 0), *cap = PyTuple_GET_ITEM(objs, 1);
  PyObject *integral = PyTuple_GET_ITEM(objs, 2), *out_o = PyTuple_GET_ITEM(objs, 3);
  PyObject *fpre_o = PyTuple_GET_ITEM(objs, 4), *y_o = PyTuple_GET_ITEM(objs, 5);
  PyObject *pos = NULL, *rot = NULL, *tr = NULL, *R = NULL, *RT = NULL, *Rd = NULL, *lg = NULL;
  PyObject *res = NULL, *tmp = NULL;
  double e[6], t[3], jv[6], vel[3], w[6], u[6], Vd[6], acc[3], F6[6], JtFv[NV_MAX];
  /* e = [pos − t; log3(rot · Rᵀ)] */
  if (!(pos = PyObject_GetAttr(ref, s_pos)) || read_vec(pos, 3, e)) goto done;
  if (!(tr = PyObject_GetAttr(oMf, s_translation)) || read_vec(tr, 3, t)) goto done;
  for (int i = 0; i < 3; i++) e[i] = e[i] - t[i];
  if (!(rot = PyObject_GetAttr(ref, s_rot)) || !(R = PyObject_GetAttr(oMf, s_rotation)) ||
      !(RT = PyObject_GetAttr(R, s_T)) || !(Rd = PyObject_CallMethodOneArg(rot, s_dot, RT)) ||
      !(lg = PyObject_CallOneArg(log3, Rd)) || read_vec(lg, 3, e + 3))
    goto done;
  if (call_vec(J, s_dot, v, 6, jv) || call_vec(ref, s_vel, NULL, 3, vel)) goto done;
  for (int i = 0; i < 6; i++) w[i] = i < 3 ? -jv[i] + vel[i] : -jv[i];
  if (call_vec(ref, s_V_d, NULL, 6, Vd)) goto done;
  int rocking = Vd[3] != 0.0 || Vd[4] != 0.0 || Vd[5] != 0.0;
  if (rocking) {
    double wr[3];
    PyObject *Vo = PyObject_GetAttr(ref, s_V_d);
    if (Vo == NULL) goto done;
    tmp = PyObject_GetItem(Vo, tail3);
    Py_DECREF(Vo);
    if (tmp == NULL || call_vec(rot, s_dot, tmp, 3, wr)) goto done;
    Py_CLEAR(tmp);
    for (int i = 0; i < 3; i++) w[3 + i] += wr[i];
  }
  if (call_vec(ref, s_acc, NULL, 3, acc)) goto done;
  for (int i = 0; i < 6; i++) u[i] = kd[i] * w[i] + kp[i] * e[i];
  for (int i = 0; i < 3; i++) u[i] += acc[i];
  if (rocking) {
    double ar[3];
    PyObject *Vo = PyObject_GetAttr(ref, s_Vdot_d);
    if (Vo == NULL) goto done;
    tmp = PyObject_GetItem(Vo, tail3);
    Py_DECREF(Vo);
    if (tmp == NULL || call_vec(rot, s_dot, tmp, 3, ar)) goto done;
    Py_CLEAR(tmp);
    for (int i = 0; i < 3; i++) u[3 + i] += ar[i];
  }
  if (use_ki) {
    Py_buffer ib;
    if (vec(integral, &ib, 3, 1)) goto done;
    double *acc_i = ib.buf;
    for (int i = 0; i < 3; i++) {
      double x = py_min(py_max(acc_i[i] + e[i] * dt, -lim), lim);
      acc_i[i] = x;
      u[i] += ki[i] * x;
    }
    PyBuffer_Release(&ib);
  }
  if (read_vec(JtF, nv, JtFv)) goto done;
  double rhs[NV_MAX];
  memcpy(rhs, JtFv, (size_t)nv * 8);
  if (preload != 0.0) {
    if (read_vec(F, 6, F6)) goto done;
    PyObject *F3 = PyObject_GetItem(F, head3);
    if (F3 == NULL) goto done;
    PyObject *d = PyObject_CallMethodOneArg(F3, s_dot, F3);
    Py_DECREF(F3);
    if (d == NULL) goto done;
    double dd = PyFloat_AsDouble(d);
    Py_DECREF(d);
    if (dd == -1.0 && PyErr_Occurred()) goto done;
    double on = sqrt(dd) > threshold ? 1.0 : 0.0;
    act += alpha_soft * (on - act);
    double Rm[9], fj[NV_MAX], scale = act * preload;
    if (read_mat(R, 3, 3, Rm)) goto done;
    Py_buffer fb;
    if (vec(fpre_o, &fb, 3, 1)) goto done;
    for (int i = 0; i < 3; i++) ((double *)fb.buf)[i] = scale * Rm[i * 3 + 2];
    PyBuffer_Release(&fb);
    PyObject *J3 = PyObject_GetItem(J, head3);
    if (J3 == NULL) goto done;
    int rc = call_vec(fpre_o, s_dot, J3, nv, fj);
    Py_DECREF(J3);
    if (rc) goto done;
    for (Py_ssize_t j = 0; j < nv; j++) rhs[j] = JtFv[j] + fj[j];
  }
  int nz = 0;
  for (Py_ssize_t j = 0; j < nv; j++) nz |= rhs[j] != 0.0;
  if (nz) { /* + J M⁻¹ (Jᵀ (F + F_pre)): dposv as scipy's wrapper calls it */
    double a[NV_MAX * NV_MAX], Mm[NV_MAX * NV_MAX], jy[6];
    if (read_mat(M, nv, nv, Mm)) goto done;
    for (Py_ssize_t i = 0; i < nv; i++)
      for (Py_ssize_t j = 0; j < nv; j++) a[i + j * nv] = Mm[i * nv + j];
    dposv_fn fn = (dposv_fn)PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
    if (fn == NULL) goto done;
    Py_buffer yb;
    if (vec(y_o, &yb, nv, 1)) goto done;
    double *y = yb.buf;
    memcpy(y, rhs, (size_t)nv * 8);
    char uplo = 'U';
    int n = (int)nv, nrhs = 1, info = 0;
    fn(&uplo, &n, &nrhs, a, &n, y, &n, &info);
    PyBuffer_Release(&yb);
    if (call_vec(J, s_dot, y_o, 6, jy)) goto done;
    for (int i = 0; i < 6; i++) u[i] += jy[i];
  }
  {
    double djv[6];
    if (call_vec(dJ, s_dot, v, 6, djv)) goto done;
    Py_buffer ob;
    if (vec(out_o, &ob, 6, 1)) goto done;
    for (int i = 0; i < 6; i++) ((double *)ob.buf)[i] = u[i] - djv[i];
    PyBuffer_Release(&ob);
  }
  res = PyFloat_FromDouble(act);
done:
  Py_XDECREF(tmp);
  Py_XDECREF(lg);
  Py_XDECREF(Rd);
  Py_XDECREF(RT);
  Py_XDECREF(R);
  Py_XDECREF(rot);
  Py_XDECREF(tr);
  Py_XDECREF(pos);
  return res;
}


typedef int (*quadprog_fn)(void *result, void *problem, void *settings);

/* A writable float64 buffer's data (contiguous, n items), or NULL; the view is released at
 * once: the caller keeps the array alive (the QP objects own these buffers). */
static double *wbuf(PyObject *o, Py_ssize_t n) {
  Py_buffer b;
  if (vec(o, &b, n, 1)) return NULL;
  double *p = b.buf;
  PyBuffer_Release(&b);
  return p;
}

/* daqp_quadprog on a DirectDaqp's structs (addresses in t[0..3]: fn, result, problem, settings;
 * t[4]: exitflag offset in the result); 1 when its exit flag is "optimal" (1 or 2), -1 error. */
static int run_daqp(PyObject *t) {
  void *a[4];
  for (int i = 0; i < 4; i++) {
    a[i] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(t, i));
    if (a[i] == NULL && PyErr_Occurred()) return -1;
  }
  Py_ssize_t off = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 4));
  if (off == -1 && PyErr_Occurred()) return -1;
  ((quadprog_fn)a[0])(a[1], a[2], a[3]);
  int flag = *(int *)((char *)a[1] + off);
  return flag == 1 || flag == 2;
}

/* lo − tol ≤ z ≤ hi + tol everywhere (qp.within; a NaN fails) */
static int within(const double *z, const double *lo, const double *hi, Py_ssize_t k, double tol) {
  for (Py_ssize_t i = 0; i < k; i++)
    if (!(lo[i] - z[i] <= tol && z[i] - hi[i] <= tol)) return 0;
  return 1;
}

/* level1(objs, J, M, b, Mt) -> x | None: HqpLevels.level1 when daqp solves it (an "optimal",
 * verified answer: a copy of its x); None otherwise, and the caller runs the Python level 1
 * from the start (the same writes again, then its fallbacks).
 * objs: (np.dot, H, regM, f, A, reg, x, bl, bu, feas_tol, daqp tuple). */
static PyObject *level1(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 5 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 11) {
    PyErr_SetString(PyExc_TypeError, "level1(objs 11-tuple, J, M, b, Mt)");
    return NULL;
  }
  PyObject *o = args[0], *J = args[1], *M = args[2], *b = args[3], *Mt = args[4];
  Py_ssize_t nv = PyObject_Length(M);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  PyObject *Ho = PyTuple_GET_ITEM(o, 1), *Ao = PyTuple_GET_ITEM(o, 4);
  double *H = wbuf(Ho, nv * nv), *regM = wbuf(PyTuple_GET_ITEM(o, 2), nv * nv);
  double *f = wbuf(PyTuple_GET_ITEM(o, 3), nv), *A = wbuf(Ao, nv * nv);
  double *x = wbuf(PyTuple_GET_ITEM(o, 6), nv);
  double *bl = wbuf(PyTuple_GET_ITEM(o, 7), 2 * nv), *bu = wbuf(PyTuple_GET_ITEM(o, 8), 2 * nv);
  double reg = PyFloat_AsDouble(PyTuple_GET_ITEM(o, 5));
  double tol = PyFloat_AsDouble(PyTuple_GET_ITEM(o, 9));
  if (!H || !regM || !f || !A || !x || !bl || !bu || PyErr_Occurred()) return NULL;
  /* np.dot(J.T, J, out=H): NumPy's own call (its syrk path) */
  PyObject *JT = PyObject_GetAttr(J, s_T);
  if (JT == NULL) return NULL;
  PyObject *cargs[3] = {JT, J, Ho}, *kw = PyTuple_Pack(1, s_out);
  PyObject *r = kw ? PyObject_Vectorcall(PyTuple_GET_ITEM(o, 0), cargs, 2, kw) : NULL;
  Py_XDECREF(kw);
  Py_DECREF(JT);
  if (r == NULL) return NULL;
  Py_DECREF(r);
  double Mm[NV_MAX * NV_MAX], bJ[NV_MAX];
  if (read_mat(M, nv, nv, Mm)) return NULL;
  for (Py_ssize_t i = 0; i < nv * nv; i++) {
    regM[i] = Mm[i] * reg;
    H[i] += regM[i];
  }
  if (call_vec(b, s_dot, J, nv, bJ)) return NULL;
  for (Py_ssize_t i = 0; i < nv; i++) f[i] = -bJ[i];
  if (Mt != Ao && read_mat(Mt, nv, nv, A)) return NULL;
  int ok = run_daqp(PyTuple_GET_ITEM(o, 10));
  if (ok < 0) return NULL;
  if (!ok) Py_RETURN_NONE;
  double z[2 * NV_MAX];
  memcpy(z, x, (size_t)nv * 8);
  PyObject *xo = PyObject_CallMethodNoArgs(PyTuple_GET_ITEM(o, 6), s_copy);
  if (xo == NULL) return NULL;
  if (call_vec(Ao, s_dot, xo, nv, z + nv)) {
    Py_DECREF(xo);
    return NULL;
  }
  if (!within(z, bl, bu, 2 * nv, tol)) {
    Py_DECREF(xo);
    Py_RETURN_NONE;
  }
  return xo;
}

/* level2(objs, J, M, Mt, qdd1, tau0) -> x | None: HqpLevels.level2 when daqp solves it and
 * its answer is within the box (a copy of x); None otherwise (the caller runs the Python
 * level 2 from the start). objs: (H2, reg_I, f2, M_rows, A2_J, bl2_task, bu2_task, x, x_lb,
 * x_ub, feas_tol, daqp tuple). */
static PyObject *level2(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 6 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 12) {
    PyErr_SetString(PyExc_TypeError, "level2(objs 12-tuple, J, M, Mt, qdd1, tau0)");
    return NULL;
  }
  PyObject *o = args[0], *J = args[1], *M = args[2], *Mt = args[3], *qdd1 = args[4];
  Py_ssize_t nv = PyObject_Length(M);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  PyObject *Mrows = PyTuple_GET_ITEM(o, 3);
  double *H2 = wbuf(PyTuple_GET_ITEM(o, 0), nv * nv), *f2 = wbuf(PyTuple_GET_ITEM(o, 2), nv);
  double *MR = wbuf(Mrows, nv * nv), *AJ = wbuf(PyTuple_GET_ITEM(o, 4), 6 * nv);
  double *bl = wbuf(PyTuple_GET_ITEM(o, 5), 6), *bu = wbuf(PyTuple_GET_ITEM(o, 6), 6);
  double *x = wbuf(PyTuple_GET_ITEM(o, 7), nv);
  double tol = PyFloat_AsDouble(PyTuple_GET_ITEM(o, 10));
  if (!H2 || !f2 || !MR || !AJ || !bl || !bu || !x || PyErr_Occurred()) return NULL;
  double Mm[NV_MAX * NV_MAX], rI[NV_MAX * NV_MAX], t0[NV_MAX], jq[6], lo[NV_MAX], hi[NV_MAX];
  if (read_mat(M, nv, nv, Mm) || read_mat(PyTuple_GET_ITEM(o, 1), nv, nv, rI) ||
      read_vec(args[5], nv, t0))
    return NULL;
  for (Py_ssize_t i = 0; i < nv * nv; i++) H2[i] = Mm[i] + rI[i];
  for (Py_ssize_t i = 0; i < nv; i++) f2[i] = -t0[i];
  if (Mt != Mrows && read_mat(Mt, nv, nv, MR)) return NULL;
  if (read_mat(J, 6, nv, AJ) || call_vec(J, s_dot, qdd1, 6, jq)) return NULL;
  for (int i = 0; i < 6; i++) bl[i] = bu[i] = jq[i];
  int ok = run_daqp(PyTuple_GET_ITEM(o, 11));
  if (ok < 0) return NULL;
  if (read_vec(PyTuple_GET_ITEM(o, 8), nv, lo) || read_vec(PyTuple_GET_ITEM(o, 9), nv, hi))
    return NULL;
  if (!ok || !within(x, lo, hi, nv, tol)) Py_RETURN_NONE;
  return PyObject_CallMethodNoArgs(PyTuple_GET_ITEM(o, 7), s_copy);
}

/* observe(objs, q, v, tau_applied, tau_known | None) -> r: MomentumObserver.update after
 * its first call, on a force_contact or total observer. objs: (obs, crba, coriolis, gravity
 * | None, model, data, M, None, beta, p_hat, r, gain, ki | None, e_int, v_prev,
 * D | None (force_contact), dt). Pinocchio's passes are the same calls; v.dot(C, out=β) and
 * M.dot(v) stay NumPy's; the rest is elementwise, in the Python order. */
static PyObject *observe(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 5 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 17) {
    PyErr_SetString(PyExc_TypeError, "observe(objs 17-tuple, q, v, tau_applied, tau_known)");
    return NULL;
  }
  PyObject *o = args[0], *q = args[1], *v = args[2];
  PyObject *obs = PyTuple_GET_ITEM(o, 0), *model = PyTuple_GET_ITEM(o, 4);
  PyObject *data = PyTuple_GET_ITEM(o, 5), *Mo = PyTuple_GET_ITEM(o, 6);
  PyObject *beta_o = PyTuple_GET_ITEM(o, 8), *r_o = PyTuple_GET_ITEM(o, 10);
  PyObject *grav = PyTuple_GET_ITEM(o, 3), *ki_o = PyTuple_GET_ITEM(o, 12);
  PyObject *D_o = PyTuple_GET_ITEM(o, 15);
  Py_ssize_t nv = PyObject_Length(v);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  double *M = wbuf(Mo, nv * nv), *beta = wbuf(beta_o, nv);
  double *p_hat = wbuf(PyTuple_GET_ITEM(o, 9), nv);
  double *r = wbuf(r_o, nv), *e_int = wbuf(PyTuple_GET_ITEM(o, 13), nv);
  double *v_prev = wbuf(PyTuple_GET_ITEM(o, 14), nv);
  double dt = PyFloat_AsDouble(PyTuple_GET_ITEM(o, 16));
  if (!M || !beta || !p_hat || !r || !e_int || !v_prev || PyErr_Occurred()) return NULL;
  double gain[NV_MAX], ki[NV_MAX], D[NV_MAX], tau[NV_MAX], ta[NV_MAX], tk[NV_MAX], vv[NV_MAX];
  if (read_vec(PyTuple_GET_ITEM(o, 11), nv, gain) || read_vec(args[3], nv, ta) ||
      read_vec(v, nv, vv) || (ki_o != Py_None && read_vec(ki_o, nv, ki)) ||
      (D_o != Py_None && args[4] == Py_None && read_vec(D_o, nv, D)) ||
      (D_o != Py_None && args[4] != Py_None && read_vec(args[4], nv, tk)))
    return NULL;
  for (Py_ssize_t i = 0; i < nv; i++) tau[i] = ta[i] + beta[i]; /* β of the previous state */
  if (D_o != Py_None) { /* force_contact */
    if (args[4] == Py_None)
      for (Py_ssize_t i = 0; i < nv; i++) tau[i] -= D[i] * v_prev[i];
    else
      for (Py_ssize_t i = 0; i < nv; i++) tau[i] += tk[i];
  }
  for (Py_ssize_t i = 0; i < nv; i++) {
    tau[i] += r[i];
    tau[i] *= dt;
    p_hat[i] += tau[i];
  }
  /* _terms(q, v) */
  PyObject *a3[4] = {model, data, q, v};
  PyObject *Mc = PyObject_Vectorcall(PyTuple_GET_ITEM(o, 1), a3, 3, NULL);
  if (Mc == NULL) return NULL;
  double Mm[NV_MAX * NV_MAX];
  int rc = read_mat(Mc, nv, nv, Mm);
  Py_DECREF(Mc);
  if (rc) return NULL;
  for (Py_ssize_t i = 0; i < nv; i++)
    for (Py_ssize_t j = 0; j < nv; j++) M[i * nv + j] = i > j ? Mm[j * nv + i] : Mm[i * nv + j];
  PyObject *C = PyObject_Vectorcall(PyTuple_GET_ITEM(o, 2), a3, 4, NULL);
  if (C == NULL) return NULL;
  PyObject *dargs[3] = {v, C, beta_o}, *kw = PyTuple_Pack(1, s_out), *res = NULL, *g = NULL;
  PyObject *rr = kw ? PyObject_VectorcallMethod(s_dot, dargs, 2, kw) : NULL;
  Py_XDECREF(kw);
  if (rr == NULL) goto done;
  Py_DECREF(rr);
  if (grav != Py_None) {
    double gv[NV_MAX];
    if (!(g = PyObject_Vectorcall(grav, a3, 3, NULL)) || read_vec(g, nv, gv)) goto done;
    for (Py_ssize_t i = 0; i < nv; i++) beta[i] -= gv[i];
    if (PyObject_SetAttr(obs, s__g, g)) goto done;
  }
  if (PyObject_SetAttr(obs, s_q_last, q) || PyObject_SetAttr(obs, s_v_last, v) ||
      PyObject_SetAttr(obs, s__C, C))
    goto done;
  double Mv[NV_MAX], e[NV_MAX];
  if (call_vec(Mo, s_dot, v, nv, Mv)) goto done;
  for (Py_ssize_t i = 0; i < nv; i++) {
    e[i] = Mv[i] - p_hat[i];
    r[i] = gain[i] * e[i];
  }
  if (ki_o != Py_None) {
    for (Py_ssize_t i = 0; i < nv; i++) e_int[i] += e[i] * dt;
    for (Py_ssize_t i = 0; i < nv; i++) r[i] += ki[i] * e_int[i];
  }
  memcpy(v_prev, vv, (size_t)nv * 8);
  res = Py_NewRef(r_o);
done:
  Py_XDECREF(g);
  Py_DECREF(C);
  return res;
}

/* wrench(objs, J, t) -> F | None: MomentumObserver.wrench_from_jacobian's damped solve
 * F = (J Jᵀ + λ² I)⁻¹ J t; None when dposv reports a non-positive-definite matrix (the
 * caller runs its Python form, which then falls back to lstsq). J.dot(J.T) and J.dot(t) are
 * NumPy's calls, dposv scipy's cython_lapack one on the F-ordered copy its wrapper makes.
 * objs: (lam2 (6, 6), dposv capsule, F buffer (6,)); F is returned as a new array. */
static PyObject *wrench(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 3 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 3) {
    PyErr_SetString(PyExc_TypeError, "wrench(objs 3-tuple, J, t)");
    return NULL;
  }
  PyObject *o = args[0], *J = args[1], *cap = PyTuple_GET_ITEM(o, 1);
  PyObject *Fo = PyTuple_GET_ITEM(o, 2);
  double lam2[36], JJt[36], a[36], *F = wbuf(Fo, 6);
  if (F == NULL || read_mat(PyTuple_GET_ITEM(o, 0), 6, 6, lam2)) return NULL;
  PyObject *JT = PyObject_GetAttr(J, s_T);
  if (JT == NULL) return NULL;
  PyObject *P = PyObject_CallMethodOneArg(J, s_dot, JT);
  Py_DECREF(JT);
  if (P == NULL) return NULL;
  int rc = read_mat(P, 6, 6, JJt);
  Py_DECREF(P);
  if (rc || call_vec(J, s_dot, args[2], 6, F)) return NULL;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) a[i + j * 6] = JJt[i * 6 + j] + lam2[i * 6 + j];
  dposv_fn fn = (dposv_fn)PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
  if (fn == NULL) return NULL;
  char uplo = 'U';
  int n = 6, nrhs = 1, info = 0;
  fn(&uplo, &n, &nrhs, a, &n, F, &n, &info);
  if (info != 0) Py_RETURN_NONE;
  return PyObject_CallMethodNoArgs(Fo, s_copy);
}

/* torque(Mt, qdd, h, JtF, tau_lo, tau_hi) -> tau: HqpController.compute's tail
 * tau = Mt.dot(qdd) (NumPy's call, a new array); tau += h; tau −= JᵀF; clipped as
 * np.minimum(np.maximum(tau, lo), hi), in place. */
static PyObject *torque(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "torque(Mt, qdd, h, JtF, tau_lo, tau_hi)");
    return NULL;
  }
  Py_ssize_t nv = PyObject_Length(args[1]);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  double h[NV_MAX], f[NV_MAX], lo[NV_MAX], hi[NV_MAX];
  if (read_vec(args[2], nv, h) || read_vec(args[3], nv, f) || read_vec(args[4], nv, lo) ||
      read_vec(args[5], nv, hi))
    return NULL;
  PyObject *tau = PyObject_CallMethodOneArg(args[0], s_dot, args[1]);
  if (tau == NULL) return NULL;
  double *t = wbuf(tau, nv);
  if (t == NULL) {
    Py_DECREF(tau);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < nv; i++) {
    double x = t[i] + h[i];
    x -= f[i];
    t[i] = np_min(np_max(x, lo[i]), hi[i]);
  }
  return tau;
}

/* null_torque(kp, q_null, q, kd, v, out) -> out: τ₀ = kp (q_null − q) − kd v (hqp._solve) */
static PyObject *null_torque(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "null_torque(kp, q_null, q, kd, v, out)");
    return NULL;
  }
  Py_ssize_t nv = PyObject_Length(args[2]);
  if (nv <= 0 || nv > NV_MAX) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_hqp: nv out of range");
    return NULL;
  }
  double kp[NV_MAX], qn[NV_MAX], q[NV_MAX], kd[NV_MAX], v[NV_MAX], *out = wbuf(args[5], nv);
  if (out == NULL || read_vec(args[0], nv, kp) || read_vec(args[1], nv, qn) ||
      read_vec(args[2], nv, q) || read_vec(args[3], nv, kd) || read_vec(args[4], nv, v))
    return NULL;
  for (Py_ssize_t i = 0; i < nv; i++) {
    double t = kp[i] * (qn[i] - q[i]);
    t -= kd[i] * v[i];
    out[i] = t;
  }
  return Py_NewRef(args[5]);
}

static PyMethodDef methods[] = {
    {"bounds", (PyCFunction)(void (*)(void))bounds, METH_FASTCALL,
     "HqpLevels.write_bounds (with JointBox.write)."},
    {"adapt", (PyCFunction)(void (*)(void))adapt, METH_FASTCALL,
     "StiffnessAdaptation.update; returns the new nominal flag."},
    {"target", (PyCFunction)(void (*)(void))target, METH_FASTCALL,
     "HqpController._task_target; returns the preload activation."},
    {"level1", (PyCFunction)(void (*)(void))level1, METH_FASTCALL,
     "HqpLevels.level1 when daqp solves it; None: run the Python level 1."},
    {"level2", (PyCFunction)(void (*)(void))level2, METH_FASTCALL,
     "HqpLevels.level2 when daqp solves it within the box; None: run the Python level 2."},
    {"observe", (PyCFunction)(void (*)(void))observe, METH_FASTCALL,
     "MomentumObserver.update after its first call; returns its residual r."},
    {"wrench", (PyCFunction)(void (*)(void))wrench, METH_FASTCALL,
     "MomentumObserver.wrench_from_jacobian's damped solve; None: run the Python form."},
    {"torque", (PyCFunction)(void (*)(void))torque, METH_FASTCALL,
     "HqpController.compute's torque tail; returns the clipped torque (a new array)."},
    {"null_torque", (PyCFunction)(void (*)(void))null_torque, METH_FASTCALL,
     "The posture torque of hqp._solve into out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_hqp", NULL, -1, methods};

PyMODINIT_FUNC PyInit__hqp(void) {
  s_dot = PyUnicode_InternFromString("dot");
  s_T = PyUnicode_InternFromString("T");
  s_translation = PyUnicode_InternFromString("translation");
  s_rotation = PyUnicode_InternFromString("rotation");
  s_pos = PyUnicode_InternFromString("pos");
  s_rot = PyUnicode_InternFromString("rot");
  s_vel = PyUnicode_InternFromString("vel");
  s_acc = PyUnicode_InternFromString("acc");
  s_V_d = PyUnicode_InternFromString("V_d");
  s_Vdot_d = PyUnicode_InternFromString("Vdot_d");
  s_out = PyUnicode_InternFromString("out");
  s_copy = PyUnicode_InternFromString("copy");
  s_q_last = PyUnicode_InternFromString("q_last");
  s_v_last = PyUnicode_InternFromString("v_last");
  s__C = PyUnicode_InternFromString("_C");
  s__g = PyUnicode_InternFromString("_g");
  PyObject *three = PyLong_FromLong(3);
  tail3 = PySlice_New(three, NULL, NULL);
  head3 = PySlice_New(NULL, three, NULL);
  Py_XDECREF(three);
  if (!s_dot || !s_T || !s_translation || !s_rotation || !s_pos || !s_rot || !s_vel || !s_acc ||
      !s_V_d || !s_Vdot_d || !s_out || !s_copy || !s_q_last || !s_v_last || !s__C || !s__g || !tail3 || !head3)
    return NULL;
  return PyModule_Create(&module);
}
