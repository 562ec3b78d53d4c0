/* One engaged control cycle of one arm in C (TeleopArm.step's plain engaged cycle).
 *
 * A Stepper holds one arm's Python objects (the arm, its clutch, XR input, stats, stage log,
 * IK, joint limiter, adapter, publisher; Placo's robot, state, task and target matrix) and
 * runs the cycle on them: the arithmetic through _chain.c's functions (imported from its
 * capsule _chain._C_API at module init; the package layout test counts compiled modules by
 * their .pyi stubs and cannot see this C-level import), Placo, the adapter and the publisher
 * through their Python methods, every attribute the Python code sets set the same way and in
 * the same order (mjscope.teleop.node, arm_channel, ik, joint_limits, xr_input, stats,
 * timing), so the compiled and the Python path can take turns on the same arm.
 *
 * step(now, ctrl, rx) first decides, changing nothing, whether the cycle is the plain engaged
 * one: no stop pending, fresh and valid feedback, a finite XR pose in force, no reset edge, the
 * grip held on an anchored clutch, no Cartesian limit binding (_chain's target). Otherwise it
 * returns None and the Python path runs the cycle. Inside the cycle, what needs Python's
 * bookkeeping (a rejected IK step, a binding joint limit, a failed send, lost feedback) is
 * handed to the same Python methods the Python path calls. Built with -ffp-contract=off.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h> /* T_OBJECT_EX, READONLY */

#include <math.h>
#include <string.h>
#include <time.h>

#include "chain_api.h" /* _chain.c's C API */
static const ChainApi *chain;

#define MAXJ 32
#define NSTAGE 6
enum { XR, TARGET, IK, LIMITS, SEND, ACK }; /* timing.STAGES */

/* interned attribute and method names */
#define NAMES(X)                                                                               \
  X(_stop_request) X(stopped) X(needs_release) X(_prev_target) X(_sent_at) X(_ack_after)      \
  X(_send_failed) X(_feedback_lost) X(ever) X(_last) X(_ctrl) X(pose) X(timed_out) X(_primary) \
  X(primary) X(grip) X(trigger) X(_ee) X(_anchors) X(cycles) X(first_cycle) X(last_cycle)      \
  X(engaged_cycles) X(ik_rejects) X(clamped) X(commanded) X(row) X(_q_model) X(_T_now)         \
  X(solver) X(_e) X(q_step) X(_reject) X(set_q) X(_ql) X(_vl) X(q) X(_moving) X(brake)          \
  X(feedback) X(send) X(publish) X(T_world_frame) X(get_T_world_frame) X(update_kinematics)    \
  X(solve) X(clamps) X(_pack) X(_queued) X(_row) X(_qv) X(_qv0) X(_qdt) X(_fold)
#define DECL(n) static PyObject *s_##n;
NAMES(DECL)
static PyObject *s_engaged, *s_qp_failure, *s_non_finite, *s_not_converged, *s_empty;
static PyObject *builtin_sum, *one, *nan_obj;

/* -- attributes: a __slots__ member read and written in place ------------------------------
 * The arm's objects (mjscope.teleop: ArmChannel/TeleopArm, XrInput, Clutch, ArmStats,
 * StageLog, ArmIk, JointLimiter, ControllerState) declare __slots__. Where the type's
 * attribute is a writable object member descriptor and the type keeps the generic
 * getattr/setattr, reading or writing the slot is what PyObject_GetAttr/SetAttr would do
 * (a member is a data descriptor: nothing overrides it); the descriptor is looked up at each
 * access (the type's method cache), so a class changed at run time is still honoured. Any other
 * case (an unset slot, a property, another class) takes the generic path. */
static PyObject **slot(PyObject *o, PyObject *name, getattrofunc get, setattrofunc set) {
  PyTypeObject *t = Py_TYPE(o);
  if ((get != NULL && t->tp_getattro != get) || (set != NULL && t->tp_setattro != set))
    return NULL;
  PyObject *d = _PyType_Lookup(t, name);
  if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type)) return NULL;
  PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
  if (m->type != T_OBJECT_EX || (m->flags & READONLY) ||
      !PyObject_TypeCheck(o, PyDescr_TYPE(d)))
    return NULL;
  return (PyObject **)((char *)o + m->offset);
}

/* PyObject_GetAttr(o, name), a slot read in place where it can be (new ref). */
static PyObject *attr_get(PyObject *o, PyObject *name) {
  PyObject **p = slot(o, name, PyObject_GenericGetAttr, NULL);
  if (p != NULL && *p != NULL) return Py_NewRef(*p);
  return PyObject_GetAttr(o, name);
}

/* PyObject_SetAttr(o, name, v), a slot written in place where it can be (v borrowed, not
 * NULL). */
static int attr_set(PyObject *o, PyObject *name, PyObject *v) {
  PyObject **p = slot(o, name, NULL, PyObject_GenericSetAttr);
  if (p == NULL) return PyObject_SetAttr(o, name, v);
  Py_XSETREF(*p, Py_NewRef(v));
  return 0;
}

/* math.isfinite(sum(values)) as Python computes it (1, 0; -1 with an exception). */
static int py_finite_sum(PyObject *values) {
  PyObject *t = PyObject_CallOneArg(builtin_sum, values);
  double v = t != NULL ? PyFloat_AsDouble(t) : -1.0;
  Py_XDECREF(t);
  if (v == -1.0 && PyErr_Occurred()) return -1;
  return isfinite(v) ? 1 : 0;
}

typedef struct {
  PyObject_HEAD
  /* the arm's Python objects */
  PyObject *arm, *clutch, *xr, *stats, *timing, *ik, *joints, *adapter, *out;
  PyObject *robot, *state, *task, *T_target, *ee_frame, *keep;
  /* types and helpers */
  PyObject *ndarray, *feedback_t, *pose_t, *cycle_t, *frombuffer, *clamps, *adapter_error;
  PyObject *threshold, *inv_dt_obj;
  double xr_timeout, fb_timeout, w_pos, w_ori, rtol1, atol;
  const double *tplan, *jplan;
  double *T, *ring;
  Py_ssize_t ring_rows, n, idx[MAXJ];
  PyObject *qv, *qv0, *qdt; /* the stats' command queue, once allocated (see commanded) */
} Stepper;

static double perf(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A list of n Python floats into out; 0 (no exception) if it is not one. */
static int floats(PyObject *seq, double *out, Py_ssize_t n) {
  if (!PyList_CheckExact(seq) || PyList_GET_SIZE(seq) != n) return 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PyList_GET_ITEM(seq, i);
    if (!PyFloat_CheckExact(o)) return 0;
    out[i] = PyFloat_AS_DOUBLE(o);
  }
  return 1;
}

/* Whether math.isfinite(sum(v)) surely holds: every value finite and small (no sum of them can
 * overflow); 0 leaves the case to Python. */
static int surely_finite(const double *v, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(fabs(v[i]) < 1e300)) return 0;
  return 1;
}

/* n float64 of an exact ndarray (C-contiguous, native "d") into out; 0 if it is not one. */
static int array_floats(Stepper *s, PyObject *a, double *out, Py_ssize_t n) {
  if ((PyObject *)Py_TYPE(a) != s->ndarray) return 0;
  Py_buffer b;
  if (PyObject_GetBuffer(a, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
    PyErr_Clear();
    return 0;
  }
  int ok = b.ndim == 1 && b.len == n * (Py_ssize_t)sizeof(double) && b.format != NULL &&
           strcmp(b.format, "d") == 0;
  if (ok) memcpy(out, b.buf, n * sizeof(double));
  PyBuffer_Release(&b);
  return ok;
}

/* Placo's 4 x 4 transform (C-contiguous float64) into T; -1 with an exception if not one. */
static int matrix(PyObject *a, double *T) {
  Py_buffer b;
  if (PyObject_GetBuffer(a, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
  int ok = b.len == 16 * (Py_ssize_t)sizeof(double) && b.format != NULL && !strcmp(b.format, "d");
  if (ok) memcpy(T, b.buf, sizeof(double) * 16);
  PyBuffer_Release(&b);
  if (!ok) PyErr_SetString(PyExc_TypeError, "T_world_frame: a 4 x 4 float64 array");
  return ok ? 0 : -1;
}

static PyObject *call0(PyObject *o, PyObject *name) {
  PyObject *args[1] = {o};
  return PyObject_VectorcallMethod(name, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call1(PyObject *o, PyObject *name, PyObject *a) {
  PyObject *args[2] = {o, a};
  return PyObject_VectorcallMethod(name, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call2(PyObject *o, PyObject *name, PyObject *a, PyObject *b) {
  PyObject *args[3] = {o, a, b};
  return PyObject_VectorcallMethod(name, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call3(PyObject *o, PyObject *name, PyObject *a, PyObject *b, PyObject *c) {
  PyObject *args[4] = {o, a, b, c};
  return PyObject_VectorcallMethod(name, args, 4 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* Set o.name = v, stealing v (NULL v: an exception already set). */
static int set_steal(PyObject *o, PyObject *name, PyObject *v) {
  if (v == NULL) return -1;
  int r = attr_set(o, name, v);
  Py_DECREF(v);
  return r;
}

/* o.name += 1 (an int attribute). */
static int incr(PyObject *o, PyObject *name) {
  PyObject *v = attr_get(o, name);
  if (v == NULL) return -1;
  PyObject *w = PyNumber_Add(v, one);
  Py_DECREF(v);
  return set_steal(o, name, w);
}

/* A NamedTuple of class cls from n items (tuple.__new__(cls, items), as its _make). */
static PyObject *named(PyObject *cls, PyObject *items) {
  if (items == NULL) return NULL;
  PyObject *args = PyTuple_Pack(1, items);
  Py_DECREF(items);
  if (args == NULL) return NULL;
  PyObject *out = PyTuple_Type.tp_new((PyTypeObject *)cls, args, NULL);
  Py_DECREF(args);
  return out;
}

/* A read-only float64 array viewing bytes (np.frombuffer(raw)). */
static PyObject *view(Stepper *s, const double *v, Py_ssize_t n) {
  PyObject *raw = PyBytes_FromStringAndSize((const char *)v, n * (Py_ssize_t)sizeof(double));
  if (raw == NULL) return NULL;
  PyObject *a = PyObject_CallOneArg(s->frombuffer, raw);
  Py_DECREF(raw);
  return a;
}


/* What the checks found: the plain engaged cycle's inputs. */
typedef struct {
  PyObject *ctrl; /* the controller state in force (new ref) */
  PyObject *prim; /* its primary button (new ref) */
  PyObject *prev; /* arm._prev_target (new ref) */
  int fresh;      /* ctrl arrived this cycle (XrInput.update takes it) */
  double pose[7], p[3], q[4], T[16];
} Plain;

static void plain_clear(Plain *c) {
  Py_CLEAR(c->ctrl);
  Py_CLEAR(c->prim);
  Py_CLEAR(c->prev);
}

/* A false-or-error test of o.name: 1 when truthy or on an error (cleared): decline. */
static int attr_true(PyObject *o, PyObject *name) {
  PyObject *v = attr_get(o, name);
  if (v == NULL) {
    PyErr_Clear();
    return 1;
  }
  int t = PyObject_IsTrue(v);
  Py_DECREF(v);
  if (t < 0) PyErr_Clear();
  return t != 0;
}

/* ArmChannel._begin's feedback checks: fresh, no controller error, finite. */
static int feedback_ok(Stepper *s, PyObject *now_o, double now) {
  PyObject *fb = call1(s->adapter, s_feedback, now_o);
  if (fb == NULL) {
    PyErr_Clear(); /* lost: Python's path stops the arm */
    return 0;
  }
  int ok = 0;
  double q[MAXJ];
  if ((PyObject *)Py_TYPE(fb) == s->feedback_t && PyTuple_GET_SIZE(fb) == 3) {
    PyObject *stamp = PyTuple_GET_ITEM(fb, 1), *err = PyTuple_GET_ITEM(fb, 2);
    ok = PyFloat_CheckExact(stamp) && !(now - PyFloat_AS_DOUBLE(stamp) > s->fb_timeout) &&
         PyLong_CheckExact(err) && !PyObject_IsTrue(err) &&
         array_floats(s, PyTuple_GET_ITEM(fb, 0), q, s->n) && surely_finite(q, s->n);
  }
  Py_DECREF(fb);
  return ok;
}

/* The XR state in force (XrInput.update), its reset edge and the clutch (TeleopArm._engaged). */
static int xr_ok(Stepper *s, Plain *c, PyObject *ctrl, double now) {
  if (ctrl != Py_None) {
    PyObject *pose = attr_get(ctrl, s_pose);
    if (pose == NULL) {
      PyErr_Clear();
      return 0;
    }
    int ok = array_floats(s, pose, c->pose, 7) && surely_finite(c->pose, 7);
    Py_DECREF(pose);
    if (!ok) return 0;
    Py_INCREF(ctrl);
    c->ctrl = ctrl;
    c->fresh = 1;
  } else {
    if (!attr_true(s->xr, s_ever)) return 0;
    PyObject *last = attr_get(s->xr, s__last);
    int ok = last != NULL && PyFloat_CheckExact(last) &&
             !(now - PyFloat_AS_DOUBLE(last) > s->xr_timeout);
    Py_XDECREF(last);
    PyObject *pose = ok ? attr_get(s->xr, s_pose) : NULL;
    ok = pose != NULL && floats(pose, c->pose, 7);
    Py_XDECREF(pose);
    c->ctrl = ok ? attr_get(s->xr, s__ctrl) : NULL;
    if (c->ctrl == NULL || c->ctrl == Py_None) {
      PyErr_Clear();
      return 0;
    }
  }
  c->prim = attr_get(c->ctrl, s_primary);
  if (c->prim == NULL) {
    PyErr_Clear();
    return 0;
  }
  int pressed = PyObject_IsTrue(c->prim);
  if (pressed < 0 || (pressed && !attr_true(s->xr, s__primary))) {
    PyErr_Clear();
    return 0; /* a reset */
  }
  PyObject *grip = attr_get(c->ctrl, s_grip);
  int held = grip != NULL ? PyObject_RichCompareBool(grip, s->threshold, Py_GT) : -1;
  Py_XDECREF(grip);
  if (held != 1) {
    PyErr_Clear();
    return 0;
  }
  return !attr_true(s->arm, s_needs_release);
}

/* The clutch target with no Cartesian limit binding (_chain's target), else 0. */
static int target_ok(Stepper *s, Plain *c) {
  PyObject *ee = attr_get(s->clutch, s__ee);
  int anchored = ee != NULL && ee != Py_None;
  Py_XDECREF(ee);
  PyObject *an = anchored ? attr_get(s->clutch, s__anchors) : NULL;
  c->prev = anchored ? attr_get(s->arm, s__prev_target) : NULL;
  double ep[3], eq[4], cp[3], ci[4], p0[3], q0[4];
  int ok = an != NULL && c->prev != NULL && PyTuple_CheckExact(an) && PyTuple_GET_SIZE(an) == 4 &&
           PyTuple_CheckExact(c->prev) && PyTuple_GET_SIZE(c->prev) == 2 &&
           floats(PyTuple_GET_ITEM(an, 0), ep, 3) && floats(PyTuple_GET_ITEM(an, 1), eq, 4) &&
           floats(PyTuple_GET_ITEM(an, 2), cp, 3) && floats(PyTuple_GET_ITEM(an, 3), ci, 4) &&
           floats(PyTuple_GET_ITEM(c->prev, 0), p0, 3) &&
           floats(PyTuple_GET_ITEM(c->prev, 1), q0, 4);
  Py_XDECREF(an);
  PyErr_Clear();
  return ok && chain->target(s->tplan, c->pose, ep, eq, cp, ci, p0, q0, c->p, c->q, c->T);
}

/* StageLog.next: the last row into the ring, a fresh row of NaN; returns it (new ref). */
static PyObject *next_row(Stepper *s) {
  PyObject *cyc = attr_get(s->timing, s_cycles);
  if (cyc == NULL) return NULL;
  Py_ssize_t k = PyLong_AsSsize_t(cyc);
  Py_DECREF(cyc);
  if (k == -1 && PyErr_Occurred()) return NULL;
  if (k) {
    PyObject *row = attr_get(s->timing, s_row);
    if (row == NULL) return NULL;
    double *dst = s->ring + ((k - 1) % s->ring_rows) * NSTAGE;
    int fast = PyList_CheckExact(row) && PyList_GET_SIZE(row) == NSTAGE;
    for (int i = 0; fast && i < NSTAGE; i++) fast = PyFloat_CheckExact(PyList_GET_ITEM(row, i));
    for (int i = 0; fast && i < NSTAGE; i++) dst[i] = PyFloat_AS_DOUBLE(PyList_GET_ITEM(row, i));
    for (int i = 0; !fast && i < NSTAGE; i++) { /* not the list of floats next_row writes */
      PyObject *v = PySequence_GetItem(row, i);
      dst[i] = v != NULL ? PyFloat_AsDouble(v) : -1.0;
      Py_XDECREF(v);
      if (dst[i] == -1.0 && PyErr_Occurred()) {
        Py_DECREF(row);
        return NULL;
      }
    }
    Py_DECREF(row);
  }
  PyObject *row = PyList_New(NSTAGE); /* list(timing._EMPTY): one NaN object, as there */
  for (int i = 0; row != NULL && i < NSTAGE; i++) PyList_SET_ITEM(row, i, Py_NewRef(nan_obj));
  if (row == NULL || attr_set(s->timing, s_row, row) < 0) goto fail;
  PyObject *k1 = PyLong_FromSsize_t(k + 1);
  if (set_steal(s->timing, s_cycles, k1) < 0) goto fail;
  return row;
fail:
  Py_XDECREF(row);
  return NULL;
}

static int put(PyObject *row, int i, double v) {
  PyObject *f = PyFloat_FromDouble(v);
  return f != NULL ? PyList_SetItem(row, i, f) : -1;
}

/* ArmChannel._begin after the checks: the cycle counted, the ack stage. */
static int begin(Stepper *s, PyObject *row, PyObject *now_o) {
  if (incr(s->stats, s_cycles) < 0) return -1;
  PyObject *first = attr_get(s->stats, s_first_cycle);
  if (first == NULL) return -1;
  int none = first == Py_None;
  Py_DECREF(first);
  if (none && attr_set(s->stats, s_first_cycle, now_o) < 0) return -1;
  if (attr_set(s->stats, s_last_cycle, now_o) < 0) return -1;
  PyObject *sent = attr_get(s->arm, s__sent_at);
  PyObject *after = sent != NULL ? attr_get(s->arm, s__ack_after) : NULL;
  int r = after != NULL ? 0 : -1;
  if (after != NULL && sent != Py_None && after != Py_None) {
    PyObject *ack = PyObject_CallOneArg(after, sent);
    r = ack != NULL ? 0 : -1;
    if (ack != NULL && ack != Py_None) {
      PyObject *d = PyNumber_Subtract(ack, sent);
      r = d != NULL ? PyList_SetItem(row, ACK, d) : -1;
      if (r == 0) r = attr_set(s->arm, s__sent_at, Py_None);
    }
    Py_XDECREF(ack);
  }
  Py_XDECREF(sent);
  Py_XDECREF(after);
  return r;
}

/* TeleopArm._xr (no new timeout here) and XrInput.primary_pressed's state. */
static int take_xr(Stepper *s, Plain *c, PyObject *now_o) {
  if (c->fresh) {
    if (attr_set(s->xr, s__ctrl, c->ctrl) < 0 ||
        attr_set(s->xr, s__last, now_o) < 0 ||
        attr_set(s->xr, s_ever, Py_True) < 0 ||
        attr_set(s->xr, s_timed_out, Py_False) < 0 ||
        set_steal(s->xr, s_pose, chain->to_list(c->pose, 7)) < 0)
      return -1;
  }
  return attr_set(s->xr, s__primary, c->prim);
}

/* ArmIk._errors: the position and orientation errors of the model's end-effector transform
 * (ik._T_now; None: Placo's get_T_world_frame) to the target. `before`: the check before the QP
 * step, which leaves ik._T_now None (advance sets it so: a transform fetched here is not cached
 * only to be dropped); after the step the new transform is cached in ik._T_now (left None by
 * the step before: not read again). Nothing in between (Placo's solve, its state, the
 * kinematics update) reads or sets ik._T_now. */
static int errors(Stepper *s, double *e, int before) {
  PyObject *T_now = before ? attr_get(s->ik, s__T_now) : Py_NewRef(Py_None);
  if (T_now == NULL) return -1;
  int cached = T_now != Py_None;
  if (!cached) {
    Py_DECREF(T_now);
    T_now = call1(s->robot, s_get_T_world_frame, s->ee_frame);
    if (T_now == NULL) return -1;
  }
  int r = 0;
  if (before && cached)
    r = attr_set(s->ik, s__T_now, Py_None);
  else if (!before)
    r = attr_set(s->ik, s__T_now, T_now);
  double T[16];
  if (r == 0) r = matrix(T_now, T);
  Py_DECREF(T_now);
  if (r == 0) chain->errors(T, s->T, e);
  return r;
}

/* ArmIk._reject through Python: the model back at q0; the reason (new ref). */
static PyObject *reject(Stepper *s, PyObject *q0, PyObject *reason) {
  return call3(s->ik, s__reject, q0, reason, Py_None);
}

/* ArmIk.advance(None): one QP step on the target the cycle wrote; its reason (new ref), the
 * accepted joints in q. */
static PyObject *advance(Stepper *s, double *q) {
  PyObject *q0 = attr_get(s->ik, s__q_model);
  if (q0 == NULL) return NULL;
  PyObject *out = NULL, *solver = NULL, *res = NULL, *qa = NULL;
  double e[2];
  if (PyObject_SetAttr(s->task, s_T_world_frame, s->T_target) < 0 || errors(s, e, 1) < 0)
    goto done; /* ik._T_now is None now */
  double before = (s->w_pos * e[0] + s->w_ori * e[1]) * s->rtol1 + s->atol;
  solver = attr_get(s->ik, s_solver);
  res = solver != NULL ? call1(solver, s_solve, Py_True) : NULL;
  if (res == NULL) {
    if (solver != NULL && PyErr_ExceptionMatches(PyExc_RuntimeError)) {
      PyErr_Clear();
      out = reject(s, q0, s_qp_failure);
    }
    goto done;
  }
  qa = PyObject_GetAttr(s->state, s_q);
  if (qa == NULL) goto done;
  Py_buffer b;
  if (PyObject_GetBuffer(qa, &b, PyBUF_STRIDES | PyBUF_FORMAT) < 0) goto done;
  int ok = b.ndim == 1 && b.format != NULL && !strcmp(b.format, "d");
  for (Py_ssize_t i = 0; ok && i < s->n; i++) {
    ok = s->idx[i] < b.shape[0];
    if (ok) q[i] = *(const double *)((const char *)b.buf + s->idx[i] * b.strides[0]);
  }
  PyBuffer_Release(&b);
  if (!ok) {
    PyErr_SetString(PyExc_RuntimeError, "Placo's state q: not the model's float64 vector");
    goto done;
  }
  PyObject *ql = chain->to_list(q, s->n);
  if (ql == NULL) goto done;
  int finite = surely_finite(q, s->n) ? 1 : py_finite_sum(ql);
  if (finite <= 0) {
    if (finite == 0) out = reject(s, q0, s_non_finite);
    Py_DECREF(ql);
    goto done;
  }
  PyObject *uk = call0(s->robot, s_update_kinematics);
  int r = uk != NULL ? errors(s, e, 0) : -1;
  Py_XDECREF(uk);
  if (r == 0) r = set_steal(s->ik, s__e, Py_BuildValue("(dd)", e[0], e[1]));
  if (r == 0 && s->w_pos * e[0] + s->w_ori * e[1] > before) {
    out = reject(s, q0, s_not_converged);
  } else if (r == 0 && attr_set(s->ik, s__q_model, ql) == 0 &&
             attr_set(s->ik, s_q_step, ql) == 0) {
    out = Py_NewRef(s_empty);
  }
  Py_DECREF(ql);
done:
  Py_DECREF(q0);
  Py_XDECREF(solver);
  Py_XDECREF(res);
  Py_XDECREF(qa);
  return out;
}

/* The joint step of an accepted IK step (JointLimiter.step, compiled, and _advance). */
typedef struct {
  PyObject *q, *v, *v0, *clamps; /* new refs */
} Step;

static void step_clear(Step *j) {
  Py_CLEAR(j->q);
  Py_CLEAR(j->v);
  Py_CLEAR(j->v0);
  Py_CLEAR(j->clamps);
}

static int joint_step(Stepper *s, const double *qd, Step *j) {
  PyObject *ql = attr_get(s->joints, s__ql);
  j->v0 = ql != NULL ? attr_get(s->joints, s__vl) : NULL;
  double q0[MAXJ], v0[MAXJ], qs[MAXJ], vs[MAXJ];
  int ok = j->v0 != NULL && floats(ql, q0, s->n) && floats(j->v0, v0, s->n);
  Py_XDECREF(ql);
  if (!ok) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the limiter's state: n floats");
    return -1;
  }
  long bits = chain->joint(s->jplan, s->n, q0, v0, qd, qs, vs);
  PyObject *lq = chain->to_list(qs, s->n);
  j->v = chain->to_list(vs, s->n);
  j->q = view(s, qs, s->n);
  int r = (lq && j->v && j->q) ? 0 : -1;
  if (r == 0) r = attr_set(s->joints, s__ql, lq);
  if (r == 0) r = attr_set(s->joints, s__vl, j->v);
  if (r == 0) r = attr_set(s->joints, s_q, j->q);
  if (r == 0) r = attr_set(s->joints, s__moving, bits > 7 ? Py_True : Py_False);
  Py_XDECREF(lq);
  j->clamps = Py_NewRef(PyTuple_GET_ITEM(s->clamps, bits & 7));
  return r;
}

/* A rejected IK step (TeleopArm._track's else branch): counted, the limiter brakes. */
static int rejected(Stepper *s, PyObject *reason, Step *j) {
  PyObject *counts = attr_get(s->stats, s_ik_rejects);
  if (counts == NULL) return -1;
  PyObject *k = PyObject_GetItem(counts, reason);
  PyObject *k1 = k != NULL ? PyNumber_Add(k, one) : NULL;
  int r = k1 != NULL ? PyObject_SetItem(counts, reason, k1) : -1;
  Py_XDECREF(k);
  Py_XDECREF(k1);
  Py_DECREF(counts);
  PyObject *st = r == 0 ? call0(s->joints, s_brake) : NULL;
  if (st == NULL) return -1;
  if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != 5) {
    Py_DECREF(st);
    PyErr_SetString(PyExc_TypeError, "JointLimiter.brake: not a JointStep");
    return -1;
  }
  j->q = Py_NewRef(PyTuple_GET_ITEM(st, 0));
  j->v = Py_NewRef(PyTuple_GET_ITEM(st, 1));
  j->clamps = Py_NewRef(PyTuple_GET_ITEM(st, 2));
  j->v0 = Py_NewRef(PyTuple_GET_ITEM(st, 3));
  Py_DECREF(st);
  return 0;
}

/* ArmStats.clamped: each binding limit's count + 1. */
static int clamped(Stepper *s, PyObject *names) {
  PyObject *counts = attr_get(s->stats, s_clamps);
  if (counts == NULL) return -1;
  int r = 0;
  for (Py_ssize_t i = 0; r == 0 && i < PyTuple_GET_SIZE(names); i++) {
    PyObject *n = PyTuple_GET_ITEM(names, i);
    PyObject *k = PyObject_GetItem(counts, n); /* a Counter: 0 when missing */
    PyObject *k1 = k != NULL ? PyNumber_Add(k, one) : NULL;
    r = k1 != NULL ? PyObject_SetItem(counts, n, k1) : -1;
    Py_XDECREF(k);
    Py_XDECREF(k1);
  }
  Py_DECREF(counts);
  return r;
}

/* ArmIk.set_q(q, joints.floats) through Python (a braking step's q). */
static int set_q_py(Stepper *s, Step *j) {
  PyObject *fl = attr_get(s->joints, s__ql);
  PyObject *y = fl != NULL ? call2(s->ik, s_set_q, j->q, fl) : NULL;
  Py_XDECREF(fl);
  Py_XDECREF(y);
  return y != NULL ? 0 : -1;
}

/* ArmIk.set_q(q, joints.floats) on the limiter's new command (the model to the command):
 * q into Placo's joint vector, _q_model, update_kinematics, no cached transform. */
static int set_q(Stepper *s, Step *j) {
  PyObject *fl = attr_get(s->joints, s__ql);
  double q[MAXJ];
  if (fl == NULL) return -1;
  if (!floats(fl, q, s->n)) {
    Py_DECREF(fl);
    return set_q_py(s, j);
  }
  PyObject *qa = PyObject_GetAttr(s->state, s_q);
  Py_buffer b;
  int r = qa != NULL ? PyObject_GetBuffer(qa, &b, PyBUF_WRITABLE | PyBUF_STRIDES | PyBUF_FORMAT)
                     : -1;
  Py_XDECREF(qa);
  if (r == 0) {
    int ok = b.ndim == 1 && b.format != NULL && !strcmp(b.format, "d");
    for (Py_ssize_t i = 0; ok && i < s->n; i++) ok = s->idx[i] < b.shape[0];
    for (Py_ssize_t i = 0; ok && i < s->n; i++)
      *(double *)((char *)b.buf + s->idx[i] * b.strides[0]) = q[i];
    PyBuffer_Release(&b);
    if (!ok) {
      PyErr_SetString(PyExc_RuntimeError, "Placo's state q: not the model's float64 vector");
      r = -1;
    }
  }
  if (r == 0) r = attr_set(s->ik, s__q_model, fl);
  Py_DECREF(fl);
  PyObject *uk = r == 0 ? call0(s->robot, s_update_kinematics) : NULL;
  Py_XDECREF(uk);
  if (uk == NULL) return -1;
  return attr_set(s->ik, s__T_now, Py_None);
}

/* An int attribute (-1 with an exception). */
static Py_ssize_t int_attr(PyObject *o, PyObject *name) {
  PyObject *v = attr_get(o, name);
  Py_ssize_t k = v != NULL ? PyLong_AsSsize_t(v) : -1;
  Py_XDECREF(v);
  return k;
}

/* n doubles into an array('d') at item i (its buffer); 0 if it does not fit. */
static int put_doubles(PyObject *arr, Py_ssize_t i, const double *v, Py_ssize_t n) {
  Py_buffer b;
  if (arr == NULL || PyObject_GetBuffer(arr, &b, PyBUF_WRITABLE) < 0) return -1;
  int ok = (i + n) * (Py_ssize_t)sizeof(double) <= b.len;
  if (ok) memcpy((double *)b.buf + i, v, n * sizeof(double));
  PyBuffer_Release(&b);
  return ok;
}

/* ArmStats.commanded(v, v0, inv_dt): the command queued for the peaks (None, new ref).
 * The first command (the queue not allocated yet) goes to Python; the queue's three arrays
 * (allocated then, never replaced: stats.py) are taken once after it, their buffers at each
 * command (an array may move). */
static PyObject *commanded(Stepper *s, Step *j) {
  if (s->qv == NULL) {
    PyObject *pack = attr_get(s->stats, s__pack);
    if (pack == NULL) return NULL;
    int first = pack == Py_None;
    Py_DECREF(pack);
    Py_ssize_t row = first ? -1 : int_attr(s->stats, s__row);
    if (PyErr_Occurred()) return NULL;
    if (row != s->n * (Py_ssize_t)sizeof(double))
      return call3(s->stats, s_commanded, j->v, j->v0, s->inv_dt_obj);
    PyObject *qv = attr_get(s->stats, s__qv), *qv0 = attr_get(s->stats, s__qv0);
    PyObject *qdt = attr_get(s->stats, s__qdt);
    if (qv == NULL || qv0 == NULL || qdt == NULL) {
      Py_XDECREF(qv);
      Py_XDECREF(qv0);
      Py_XDECREF(qdt);
      return NULL;
    }
    s->qv = qv, s->qv0 = qv0, s->qdt = qdt;
  }
  double v[MAXJ], v0[MAXJ];
  Py_ssize_t i = int_attr(s->stats, s__queued);
  if (i < 0 && PyErr_Occurred()) return NULL;
  if (i < 0 || !floats(j->v, v, s->n) || !floats(j->v0, v0, s->n))
    return call3(s->stats, s_commanded, j->v, j->v0, s->inv_dt_obj);
  double inv_dt = PyFloat_AS_DOUBLE(s->inv_dt_obj);
  int r = put_doubles(s->qv, i * s->n, v, s->n);
  if (r == 1) r = put_doubles(s->qv0, i * s->n, v0, s->n);
  if (r == 1) r = put_doubles(s->qdt, i, &inv_dt, 1);
  Py_ssize_t cap = r == 1 ? PyObject_Length(s->qdt) : -1;
  if (r == 0) return call3(s->stats, s_commanded, j->v, j->v0, s->inv_dt_obj);
  if (r < 0 || cap < 0 || set_steal(s->stats, s__queued, PyLong_FromSsize_t(i + 1)) < 0)
    return NULL;
  if (i + 1 >= cap) return call0(s->stats, s__fold);
  Py_RETURN_NONE;
}

/* TeleopArm._track after the checks: target → IK → joint limits; the target Pose (new ref). */
static PyObject *track(Stepper *s, Plain *c, PyObject *row, Step *j) {
  double t0 = perf();
  if (incr(s->stats, s_engaged_cycles) < 0) return NULL;
  memcpy(s->T, c->T, sizeof c->T); /* the IK task's target matrix */
  double pq[7];
  memcpy(pq, c->p, sizeof c->p);
  memcpy(pq + 3, c->q, sizeof c->q);
  PyObject *a = view(s, pq, 7);
  double t1 = perf(), q[MAXJ];
  PyObject *reason = a != NULL ? advance(s, q) : NULL;
  double t2 = perf();
  int truthy = reason != NULL ? PyObject_IsTrue(reason) : -1;
  int r = truthy >= 0 ? 0 : -1;
  int ok = truthy == 0; /* "": accepted */
  if (ok) {
    PyObject *p = chain->to_list(c->p, 3), *qq = chain->to_list(c->q, 4);
    PyObject *prev = (p && qq) ? PyTuple_Pack(2, p, qq) : NULL;
    Py_XDECREF(p);
    Py_XDECREF(qq);
    r = set_steal(s->arm, s__prev_target, prev);
    if (r == 0) r = joint_step(s, q, j);
  } else if (r == 0) {
    r = rejected(s, reason, j);
  }
  if (r == 0 && (!ok || PyTuple_GET_SIZE(j->clamps))) {
    r = clamped(s, j->clamps);
    if (r == 0) r = ok ? set_q(s, j) : set_q_py(s, j);
  }
  Py_XDECREF(reason);
  PyObject *pose = NULL;
  if (r == 0 && put(row, TARGET, t1 - t0) == 0 && put(row, IK, t2 - t1) == 0 &&
      put(row, LIMITS, perf() - t2) == 0) {
    PyObject *pp = PySequence_GetSlice(a, 0, 3), *pqv = PySequence_GetSlice(a, 3, 7);
    pose = (pp && pqv) ? named(s->pose_t, PyTuple_Pack(2, pp, pqv)) : NULL;
    Py_XDECREF(pp);
    Py_XDECREF(pqv);
  }
  Py_XDECREF(a);
  return pose;
}

/* An adapter's AdapterError handed to the arm's helper (its result, new ref); other errors
 * stay raised (NULL). */
static PyObject *adapter_failed(Stepper *s, PyObject *helper) {
  if (!PyErr_ExceptionMatches(s->adapter_error)) return NULL;
  PyObject *t, *e, *tb;
  PyErr_Fetch(&t, &e, &tb);
  PyErr_NormalizeException(&t, &e, &tb);
  if (tb != NULL) PyException_SetTraceback(e, tb);
  PyObject *r = e != NULL ? call1(s->arm, helper, e) : NULL;
  Py_XDECREF(t);
  Py_XDECREF(e);
  Py_XDECREF(tb);
  return r;
}

/* ArmChannel._out: send, publish, the send stage. */
static int output(Stepper *s, Step *j, PyObject *row, PyObject *now_o, double now, double t0) {
  double t1 = perf();
  int sent = 0;
  PyObject *r = call2(s->adapter, s_send, j->q, now_o);
  if (r == NULL) {
    r = adapter_failed(s, s__send_failed);
    if (r == NULL) return -1;
  } else {
    Py_DECREF(r);
    r = commanded(s, j);
    if (r == NULL) return -1;
    sent = 1;
  }
  Py_DECREF(r);
  if (sent) {
    PyObject *after = attr_get(s->arm, s__ack_after);
    if (after == NULL) return -1;
    int has = after != Py_None;
    Py_DECREF(after);
    if (has && set_steal(s->arm, s__sent_at, PyFloat_FromDouble(now + (perf() - t0))) < 0)
      return -1;
  }
  PyObject *fb = call1(s->adapter, s_feedback, now_o);
  if (fb == NULL && (fb = adapter_failed(s, s__feedback_lost)) == NULL) return -1;
  PyObject *fq = fb != Py_None ? attr_get(fb, s_q) : Py_NewRef(Py_None);
  Py_DECREF(fb);
  if (fq == NULL) return -1;
  r = call2(s->out, s_publish, fq, sent ? j->q : Py_None);
  Py_DECREF(fq);
  if (r == NULL) return -1;
  Py_DECREF(r);
  return put(row, SEND, perf() - t1);
}

/* Stepper.step(now, ctrl, rx) -> Cycle | None */
static PyObject *step(Stepper *s, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "step(now, ctrl, rx)");
    return NULL;
  }
  PyObject *now_o = args[0], *ctrl = args[1], *rx = args[2];
  if (!PyFloat_CheckExact(now_o) || (rx != Py_None && !PyFloat_CheckExact(rx))) Py_RETURN_NONE;
  double now = PyFloat_AS_DOUBLE(now_o);
  Plain c = {0};
  /* the checks: nothing changes before they all pass */
  if (attr_true(s->arm, s__stop_request) || attr_true(s->arm, s_stopped) ||
      !feedback_ok(s, now_o, now) || !xr_ok(s, &c, ctrl, now) || !target_ok(s, &c)) {
    plain_clear(&c);
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  /* the cycle */
  Step j = {0};
  PyObject *out = NULL, *pose = NULL;
  PyObject *row = next_row(s);
  double t0 = perf();
  if (row == NULL || begin(s, row, now_o) < 0) goto done;
  if (ctrl != Py_None && rx != Py_None) {
    double d = now - PyFloat_AS_DOUBLE(rx);
    if (put(row, XR, d > 0.0 ? d : 0.0) < 0) goto done;
  }
  if (take_xr(s, &c, now_o) < 0 || (pose = track(s, &c, row, &j)) == NULL) goto done;
  if (output(s, &j, row, now_o, now, t0) < 0) goto done;
  PyObject *grip = attr_get(c.ctrl, s_grip);
  PyObject *trig = grip != NULL ? attr_get(c.ctrl, s_trigger) : NULL;
  PyObject *stages = trig != NULL ? PyList_AsTuple(row) : NULL;
  if (stages != NULL)
    out = named(s->cycle_t, PyTuple_Pack(7, now_o, s_engaged, grip, trig, pose, j.q, stages));
  Py_XDECREF(grip);
  Py_XDECREF(trig);
  Py_XDECREF(stages);
done:
  Py_XDECREF(row);
  Py_XDECREF(pose);
  step_clear(&j);
  plain_clear(&c);
  return out;
}

/* -- the type ------------------------------------------------------------------------------ */

#define OBJECTS(X)                                                                             \
  X(arm) X(clutch) X(xr) X(stats) X(timing) X(ik) X(joints) X(adapter) X(out) X(robot)          \
  X(state) X(task) X(T_target) X(ee_frame) X(keep) X(ndarray) X(feedback_t) X(pose_t)          \
  X(cycle_t) X(frombuffer) X(clamps) X(adapter_error) X(threshold) X(inv_dt_obj)
#define COUNT(n) +1
enum { NOBJ = 0 OBJECTS(COUNT) };
/* the stats' command queue arrays, taken after the first command (commanded) */
#define QUEUE(X) X(qv) X(qv0) X(qdt)

static const double *address(PyObject *o) {
  void *p = PyLong_AsVoidPtr(o);
  if (p == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "null address");
  return (const double *)p;
}

/* Stepper(objects, numbers, idx, addresses, ring_rows): native_step.stepper builds them. */
static int init(Stepper *s, PyObject *args, PyObject *kw) {
  PyObject *objs, *nums, *idx, *addr;
  Py_ssize_t rows;
  if (kw != NULL && PyDict_GET_SIZE(kw)) {
    PyErr_SetString(PyExc_TypeError, "Stepper takes no keywords");
    return -1;
  }
  if (!PyArg_ParseTuple(args, "O!O!O!O!n", &PyTuple_Type, &objs, &PyTuple_Type, &nums,
                        &PyTuple_Type, &idx, &PyTuple_Type, &addr, &rows))
    return -1;
  if (PyTuple_GET_SIZE(objs) != NOBJ || PyTuple_GET_SIZE(nums) != 6 ||
      PyTuple_GET_SIZE(addr) != 4 || PyTuple_GET_SIZE(idx) > MAXJ || rows < 1) {
    PyErr_SetString(PyExc_ValueError, "Stepper: bad layout (see native_step.stepper)");
    return -1;
  }
  int i = 0;
#define TAKE(n) Py_XSETREF(s->n, Py_NewRef(PyTuple_GET_ITEM(objs, i))); i++;
  OBJECTS(TAKE)
#undef TAKE
#define CLEAR(n) Py_CLEAR(s->n);
  QUEUE(CLEAR) /* taken again from these stats at their next command */
#undef CLEAR
  double *d[6] = {&s->xr_timeout, &s->fb_timeout, &s->w_pos, &s->w_ori, &s->rtol1, &s->atol};
  for (int k = 0; k < 6; k++) {
    *d[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(nums, k));
    if (*d[k] == -1.0 && PyErr_Occurred()) return -1;
  }
  s->n = PyTuple_GET_SIZE(idx);
  for (Py_ssize_t k = 0; k < s->n; k++) {
    s->idx[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(idx, k));
    if (s->idx[k] < 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Stepper: a negative index");
      return -1;
    }
  }
  s->tplan = address(PyTuple_GET_ITEM(addr, 0));
  s->jplan = s->tplan ? address(PyTuple_GET_ITEM(addr, 1)) : NULL;
  s->T = s->jplan ? (double *)address(PyTuple_GET_ITEM(addr, 2)) : NULL;
  s->ring = s->T ? (double *)address(PyTuple_GET_ITEM(addr, 3)) : NULL;
  s->ring_rows = rows;
  if (s->ring == NULL) return -1;
  if (!PyTuple_Check(s->clamps) || PyTuple_GET_SIZE(s->clamps) != 8 ||
      !PyType_Check(s->pose_t) || !PyType_IsSubtype((PyTypeObject *)s->pose_t, &PyTuple_Type) ||
      !PyType_Check(s->cycle_t) ||
      !PyType_IsSubtype((PyTypeObject *)s->cycle_t, &PyTuple_Type)) {
    PyErr_SetString(PyExc_TypeError, "Stepper: bad helper objects");
    return -1;
  }
  return 0;
}

static int traverse(Stepper *s, visitproc visit, void *arg) {
#define VISIT(n) Py_VISIT(s->n);
  OBJECTS(VISIT)
  QUEUE(VISIT)
#undef VISIT
  return 0;
}

static int clear(Stepper *s) {
#define CLEAR(n) Py_CLEAR(s->n);
  OBJECTS(CLEAR)
  QUEUE(CLEAR)
#undef CLEAR
  return 0;
}

static void dealloc(Stepper *s) {
  PyObject_GC_UnTrack(s);
  clear(s);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *stepper_call(Stepper *s, PyObject *const *args, size_t nargsf, PyObject *kw) {
  if (kw != NULL || s->arm == NULL) {
    PyErr_SetString(PyExc_TypeError, "step(now, ctrl, rx) on a built Stepper");
    return NULL;
  }
  return step(s, args, PyVectorcall_NARGS(nargsf));
}

static PyObject *stepper_step(Stepper *s, PyObject *const *args, Py_ssize_t nargs) {
  return stepper_call(s, args, (size_t)nargs, NULL);
}

static PyMethodDef stepper_methods[] = {
    {"step", (PyCFunction)(void (*)(void))stepper_step, METH_FASTCALL,
     "step(now, ctrl, rx) -> the engaged cycle's Cycle, or None (the Python path runs it)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StepperType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mjscope.teleop._armstep.Stepper",
    .tp_basicsize = sizeof(Stepper),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "One arm's engaged cycle in C (see mjscope.teleop.native_step).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)init,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_methods = stepper_methods,
};

static PyObject *chain_version(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyLong_FromLong(chain->version);
}

static PyMethodDef methods[] = {
    {"chain_version", chain_version, METH_NOARGS, "The _chain C API version in use."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_armstep", "One arm's engaged teleop cycle in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__armstep(void) {
  /* PyCapsule_Import only walks attributes below the top package: import _chain itself first,
   * so `import mjscope.teleop._armstep` works on its own, not only after native_chain. */
  PyObject *chain_module = PyImport_ImportModule("mjscope.teleop._chain");
  if (chain_module == NULL) return NULL;
  Py_DECREF(chain_module);
  chain = (const ChainApi *)PyCapsule_Import("mjscope.teleop._chain._C_API", 0);
  if (chain == NULL) return NULL;
  if (chain->version != CHAIN_API_VERSION || chain->maxj != MAXJ) {
    PyErr_SetString(PyExc_ImportError, "_armstep: _chain's C API differs; rebuild both");
    return NULL;
  }
#define INTERN(n) \
  if ((s_##n = PyUnicode_InternFromString(#n)) == NULL) return NULL;
  NAMES(INTERN)
#undef INTERN
  if (!(s_engaged = PyUnicode_InternFromString("engaged")) ||
      !(s_qp_failure = PyUnicode_InternFromString("qp_failure")) ||
      !(s_non_finite = PyUnicode_InternFromString("non_finite")) ||
      !(s_not_converged = PyUnicode_InternFromString("not_converged")) ||
      !(s_empty = PyUnicode_InternFromString("")))
    return NULL;
  PyObject *b = PyImport_ImportModule("builtins");
  builtin_sum = b != NULL ? PyObject_GetAttrString(b, "sum") : NULL;
  Py_XDECREF(b);
  one = PyLong_FromLong(1);
  nan_obj = PyFloat_FromDouble(NAN);
  if (builtin_sum == NULL || one == NULL || nan_obj == NULL || PyType_Ready(&StepperType) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (m == NULL) return NULL;
  if (PyModule_AddObjectRef(m, "Stepper", (PyObject *)&StepperType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
