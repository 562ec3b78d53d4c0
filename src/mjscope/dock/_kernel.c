/* The docking loop of mjscope.dock.loop.run_loop in C, per control period.
 *
 * Laws: CIC and se3_lie in C (P_LAW 1, 2); a Python law's compute called per period (3: hqp). mjscope.dock.native_loop drives it (a chunk of periods per call); this file only runs
 * periods. Nothing here links against MuJoCo, Pinocchio, NumPy or LAPACK:
 *  - MuJoCo's mj_step / mj_kinematics and its thread-local log-handler hook come as addresses
 *    (from the libmujoco the bindings loaded), with the model, data and buffer addresses;
 *  - LAPACK dsytrf / dsytrs come as scipy.linalg.cython_lapack capsules: the very routines
 *    scipy.linalg.lapack.dsytrf / dsytrs run, with the same arguments (lwork = n);
 *  - the rigid-body terms (Pinocchio) and the small NumPy products (J v, R_d Rᵀ, ...) are the
 *    Python loop's own calls, made from here through the C API on the same objects, so their
 *    results are the same bits; everything else (the laws' scalar arithmetic, friction
 *    feed-forward around NumPy's tanh, the limiter, the tool-load arithmetic, the telemetry
 *    rows) is plain C in the Python loop's operation order.
 * Built with -ffp-contract=off: no fused multiply-add, so the arithmetic is Python's and
 * NumPy's bit for bit. mju_error inside mj_step longjmps back here from a thread-local log
 * handler (as in diagnose/_steploop.c); the message goes back to Python.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../sim/mjlog.h"

typedef void (*step_fn)(const void *m, void *d);
typedef void (*sytrf_fn)(char *, int *, double *, int *, int *, double *, int *, int *);
typedef void (*gemv_fn)(int order, int trans, int64_t m, int64_t n, double alpha,
                        const double *A, int64_t lda, const double *x, int64_t incx,
                        double beta, double *y, int64_t incy); /* NumPy's ILP64 cblas */
typedef void (*gemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha,
                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                        double *C, int64_t ldc); /* NumPy's ILP64 cblas */
typedef int (*chol_fn)(double *mat, int n, double mindiag);
typedef void (*sytrs_fn)(char *, int *, int *, double *, int *, int *, double *, int *, int *);

/* int64 plan slots: keep in this order, native_plan.SLOTS names them */
enum {
  P_MODEL, P_DATA, P_STEP, P_KIN, P_TLS, P_GLOBAL, P_NSUB, P_NV,
  P_QPOS, P_QVEL, P_CTRL, P_BADACC, P_XPOS, P_XMAT, P_FT6,
  P_Q, P_V, P_QP, P_VP, P_ACC, P_TAU, P_X, P_W, P_PSTATE,
  P_COMP, P_BIASED, P_HASG, P_FRIC, P_USEDAMP, P_COUL, P_DAMP,
  P_RATED, P_HI, P_PREV, P_HAVEPREV, P_STATS,
  P_COL_T, P_COL_Q, P_COL_V, P_COL_TAU, P_COL_P, P_COL_R, P_COL_W, P_COL_CF, P_COL_RAW,
  P_REF_POS, P_REF_VEL, P_REF_ACC, P_REF_ROT, P_REF_WB, P_REF_WBD, P_REF_ROW,
  P_K0, P_K1, P_KDONE, P_MSG, P_F,
  P_CIC_KP, P_CIC_KD, P_CIC_KI, P_CIC_INT, P_CIC_USEINT, P_CIC_K, P_CIC_B, P_CIC_KW,
  P_CIC_LU, P_CIC_PIV, P_CIC_XS, P_RD, P_WD, P_WDD, P_REFROT,
  P_LAW, P_REF_T, P_REF_VD, P_REF_VDD, P_TD, P_VD, P_VDD, P_TMP6, P_TMP3, P_SW, P_SVW, P_SF,
  P_SE3_KP, P_SE3_KPT, P_SE3_LOG, P_SE3_DROP, P_CHOL, P_JJT, P_SMV, P_TDT, P_GEMV, P_GEMM, P_A6P, P_KRP, P_EBUF,
  P_NSLOTS
};
/* float64 parameters */
enum { F_DT, F_INVDT, F_RATE, F_EPS, F_ILO, F_IHI, F_TM, F_TC, F_TI = F_TC + 3, F_TB = F_TI + 9,
       F_BIAS = F_TB + 6, F_G = F_BIAS + 6, F_NULLKP = F_G + 3, F_NULLKD, F_QNULL, F_CICDT = F_QNULL + 16, F_SING2, F_N };
/* Python objects: keep in this order, native_plan.OBJECTS names them */
enum {
  O_JJTV, O_UFP, O_GFJ, O_GFJTV, O_CRBA, O_NLE, O_LOG3, O_TANH, O_CF,
  O_FK, O_UFPC, O_GFV, O_GFCA, O_SYTRF, O_SYTRS, O_SYMFACTOR,
  O_V, O_X, O_W, O_W0, O_AT, O_NEGF, O_K, O_B, O_RD, O_WD, O_WDD, O_REFROT, O_G, O_FTRT, O_A6,
  O_SE3, O_MOTION, O_CORI, O_LOG6, O_JLOG6, O_NPDOT, O_JJT, O_KR, O_TD, O_VD, O_VDD, O_TMP6,
  O_TMP3, O_SW, O_SVW, O_SF, O_MV, O_PYLAW, O_POST, O_EBUF,
  O_N
};
enum { DONE = 0, NONFINITE = 1, BADACC = 2, FATAL = 3, PYERR = -1 };

static PyObject *s_dot, *s_T, *s_translation, *s_rotation, *s_vector, *s_solve, *s_actInv,
    *s_inverse, *s_act, *s_cross;

/* Row-major doubles of a (rows, cols) float64 buffer (any strides); rows = 1 for a vector. */
static int read_mat(PyObject *o, Py_ssize_t rows, Py_ssize_t cols, double *out) {
  Py_buffer b;
  if (PyObject_GetBuffer(o, &b, PyBUF_RECORDS_RO) < 0) return -1;
  int ok = b.itemsize == 8 && b.format != NULL && b.format[0] == 'd' && b.format[1] == 0;
  Py_ssize_t s0 = 0, s1 = 8;
  if (ok && b.ndim == 2) {
    ok = b.shape[0] == rows && b.shape[1] == cols;
    s0 = b.strides[0], s1 = b.strides[1];
  } else if (ok && b.ndim == 1) {
    ok = b.shape[0] == rows * cols;
    s1 = b.strides[0], s0 = s1 * cols;
  } else {
    ok = 0;
  }
  if (ok) {
    const char *base = (const char *)b.buf;
    for (Py_ssize_t i = 0; i < rows; i++)
      for (Py_ssize_t j = 0; j < cols; j++)
        out[i * cols + j] = *(const double *)(base + i * s0 + j * s1);
  } else {
    PyErr_SetString(PyExc_RuntimeError, "dock kernel: unexpected array from a callee");
  }
  PyBuffer_Release(&b);
  return ok ? 0 : -1;
}

/* a.dot(b) read into out (rows, cols); 0 or -1 */
static int dot_into(PyObject *a, PyObject *b, Py_ssize_t rows, Py_ssize_t cols, double *out) {
  PyObject *r = PyObject_CallMethodOneArg(a, s_dot, b);
  if (r == NULL) return -1;
  int rc = read_mat(r, rows, cols, out);
  Py_DECREF(r);
  return rc;
}

static int attr_into(PyObject *o, PyObject *name, Py_ssize_t rows, Py_ssize_t cols, double *out) {
  PyObject *r = PyObject_GetAttr(o, name);
  if (r == NULL) return -1;
  int rc = read_mat(r, rows, cols, out);
  Py_DECREF(r);
  return rc;
}

typedef struct {
  int64_t *p;
  double *f;
  PyObject **o; /* borrowed items of the objects tuple */
  int nv;
} Ctx;

/* The layout of a 2-D float64 (rows, cols) array: 1 C-, 2 F-contiguous, 0 another (or not an
 * array); its first element in *data (valid while the caller holds the object). */
static int layout(PyObject *o, Py_ssize_t rows, Py_ssize_t cols, const double **data) {
  Py_buffer b;
  if (PyObject_GetBuffer(o, &b, PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    return 0;
  }
  int kind = 0;
  if (b.ndim == 2 && b.itemsize == 8 && b.format && b.format[0] == 'd' && !b.format[1] &&
      b.shape[0] == rows && b.shape[1] == cols) {
    if (b.strides[1] == 8 && b.strides[0] == 8 * cols) kind = 1;
    else if (b.strides[0] == 8 && b.strides[1] == 8 * rows) kind = 2;
  }
  *data = (const double *)b.buf;
  PyBuffer_Release(&b);
  return kind;
}

/* out (L, N) = A (L, M) · B (M, N) (a_f, b_f: the operand is F-contiguous, else C): NumPy's own
 * cblas_dgemm with the arguments ndarray.dot passes (RowMajor, Trans for an F operand, lda and
 * ldb from the layout, α = 1, β = 0 into a zeroed out) */
static void mm(Ctx *c, const double *A, int a_f, const double *B, int b_f, int64_t L, int64_t N,
               int64_t M, double *out) {
  memset(out, 0, (size_t)(L * N) * sizeof(double));
  ((gemm_fn)c->p[P_GEMM])(101, a_f ? 112 : 111, b_f ? 112 : 111, L, N, M, 1.0, A, a_f ? L : M,
                          B, b_f ? M : N, 0.0, out, N);
}

/* A.dot(x) (trans 0) or x.dot(A) (trans 1) for a 2-D float64 A and a contiguous x, into y:
 * NumPy's own cblas_dgemv with the arguments NumPy's dot passes it (Order from A's layout,
 * M, N its shape, lda, α = 1, β = 0 into a zeroed y), so the same bits; without NumPy's cblas
 * (P_GEMV 0) or for another layout, NumPy's dot itself through xo. */
static int mv(Ctx *c, PyObject *A, PyObject *xo, const double *x, int trans, Py_ssize_t ny,
              double *y) {
  const gemv_fn gemv = (gemv_fn)c->p[P_GEMV];
  Py_buffer b;
  if (gemv != NULL && PyObject_GetBuffer(A, &b, PyBUF_RECORDS_RO) == 0) {
    int order = 0;
    int64_t lda = 0;
    if (b.ndim == 2 && b.itemsize == 8 && b.format && b.format[0] == 'd' && !b.format[1] &&
        b.shape[0] > 1 && b.shape[1] > 1 && (trans ? b.shape[1] : b.shape[0]) == ny) {
      if (b.strides[1] == 8 && b.strides[0] == 8 * b.shape[1])
        order = 101, lda = b.shape[1]; /* CblasRowMajor */
      else if (b.strides[0] == 8 && b.strides[1] == 8 * b.shape[0])
        order = 102, lda = b.shape[0]; /* CblasColMajor */
    }
    if (order) {
      memset(y, 0, (size_t)ny * sizeof(double));
      gemv(order, trans ? 112 : 111, b.shape[0], b.shape[1], 1.0, (const double *)b.buf, lda, x,
           1, 0.0, y, 1);
      PyBuffer_Release(&b);
      return 0;
    }
    PyBuffer_Release(&b);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  return trans ? dot_into(xo, A, 1, ny, y) : dot_into(A, xo, 1, ny, y);
}

/* Probe.sense's wrenches (compensated, raw) in world axes, into pstate (p, R, wrench, raw,
 * cf); the tool-load prediction at (q_prev, v_prev, a). */
static int sense(Ctx *c, int first) {
  int64_t *p = c->p;
  double *f = c->f;
  const int nv = c->nv;
  double *ps = (double *)p[P_PSTATE]; /* p 3, R 9, wrench 6, raw 6, cf 1 */
  memcpy(ps, (const double *)p[P_XPOS], 3 * sizeof(double));
  memcpy(ps + 3, (const double *)p[P_XMAT], 9 * sizeof(double));
  double *W = (double *)p[P_W]; /* (2, 6) */
  const double *ft6 = (const double *)p[P_FT6];
  for (int i = 0; i < 6; i++) W[i] = ft6[i];
  if (p[P_BIASED])
    for (int i = 0; i < 6; i++) W[i] = W[i] + f[F_BIAS + i];
  if (!p[P_COMP]) { /* raw = A.dot(W[0]).reshape(2, 3).dot(R_ft_T).ravel() */
    PyObject *aw = PyObject_CallMethodOneArg(c->o[O_A6], s_dot, c->o[O_W0]);
    PyObject *aw23 = aw == NULL ? NULL : PyObject_CallMethod(aw, "reshape", "ii", 2, 3);
    Py_XDECREF(aw);
    int rc = aw23 == NULL ? -1 : dot_into(aw23, c->o[O_FTRT], 2, 3, ps + 12);
    Py_XDECREF(aw23);
    if (rc < 0) return -1;
    memcpy(ps + 18, ps + 12, 6 * sizeof(double));
  } else {
    double *a = (double *)p[P_ACC], *v = (double *)p[P_V], *vp = (double *)p[P_VP];
    if (first) {
      for (int j = 0; j < nv; j++) a[j] = 0.0;
    } else {
      for (int j = 0; j < nv; j++) a[j] = v[j] - vp[j];
      for (int j = 0; j < nv; j++) a[j] = a[j] * f[F_INVDT];
    }
    PyObject *r = PyObject_Call(PyTuple_GET_ITEM(c->o[O_FK], 0), PyTuple_GET_ITEM(c->o[O_FK], 1),
                                NULL);
    if (r == NULL) return -1;
    Py_DECREF(r);
    PyObject *oMs = PyObject_Call(PyTuple_GET_ITEM(c->o[O_UFPC], 0),
                                  PyTuple_GET_ITEM(c->o[O_UFPC], 1), NULL);
    if (oMs == NULL) return -1;
    PyObject *Rs = PyObject_GetAttr(oMs, s_rotation);
    Py_DECREF(oMs);
    if (Rs == NULL) return -1;
    double V6[6], A6[6], s[3], al[3];
    PyObject *mv = PyObject_Call(PyTuple_GET_ITEM(c->o[O_GFV], 0),
                                 PyTuple_GET_ITEM(c->o[O_GFV], 1), NULL);
    int rc = mv == NULL ? -1 : attr_into(mv, s_vector, 1, 6, V6);
    Py_XDECREF(mv);
    PyObject *ma = rc < 0 ? NULL
                          : PyObject_Call(PyTuple_GET_ITEM(c->o[O_GFCA], 0),
                                          PyTuple_GET_ITEM(c->o[O_GFCA], 1), NULL);
    rc = ma == NULL ? -1 : attr_into(ma, s_vector, 1, 6, A6);
    Py_XDECREF(ma);
    if (rc == 0 && p[P_HASG]) { /* acc[:3] − R.T.dot(g) */
      double gs[3];
      PyObject *RT = PyObject_GetAttr(Rs, s_T);
      rc = RT == NULL ? -1 : dot_into(RT, c->o[O_G], 1, 3, gs);
      Py_XDECREF(RT);
      for (int i = 0; i < 3; i++) s[i] = A6[i] - gs[i];
    } else {
      for (int i = 0; i < 3; i++) s[i] = A6[i];
    }
    if (rc < 0) {
      Py_DECREF(Rs);
      return -1;
    }
    for (int i = 0; i < 3; i++) al[i] = A6[3 + i];
    const double w0 = V6[3], w1 = V6[4], w2 = V6[5];
    const double a0 = al[0], a1 = al[1], a2 = al[2], s0 = s[0], s1 = s[1], s2 = s[2];
    const double m = f[F_TM], c0 = f[F_TC], c1 = f[F_TC + 1], c2 = f[F_TC + 2];
    const double *I = f + F_TI, *b = f + F_TB;
    const double u0 = w1 * c2 - w2 * c1, u1 = w2 * c0 - w0 * c2, u2 = w0 * c1 - w1 * c0;
    const double f0 = m * (s0 + a1 * c2 - a2 * c1 + w1 * u2 - w2 * u1);
    const double f1 = m * (s1 + a2 * c0 - a0 * c2 + w2 * u0 - w0 * u2);
    const double f2 = m * (s2 + a0 * c1 - a1 * c0 + w0 * u1 - w1 * u0);
    const double h0 = I[0] * w0 + I[1] * w1 + I[2] * w2;
    const double h1 = I[3] * w0 + I[4] * w1 + I[5] * w2;
    const double h2 = I[6] * w0 + I[7] * w1 + I[8] * w2;
    double *L = W + 6;
    L[0] = f0 + b[0], L[1] = f1 + b[1], L[2] = f2 + b[2];
    L[3] = I[0] * a0 + I[1] * a1 + I[2] * a2 + w1 * h2 - w2 * h1 + c1 * f2 - c2 * f1 + b[3];
    L[4] = I[3] * a0 + I[4] * a1 + I[5] * a2 + w2 * h0 - w0 * h2 + c2 * f0 - c0 * f2 + b[4];
    L[5] = I[6] * a0 + I[7] * a1 + I[8] * a2 + w0 * h1 - w1 * h0 + c0 * f1 - c1 * f0 + b[5];
    for (int i = 0; i < 6; i++) L[i] = W[i] - L[i];
    /* Y = W.dot(A.T).reshape(4, 3).dot(R.T).reshape(2, 6) */
    double Y[12], WA[12];
    const double *Rp = NULL;
    const int rk = p[P_GEMM] ? layout(Rs, 3, 3, &Rp) : 0;
    if (rk) { /* A is C-contiguous (checked by the plan): A.T is F */
      mm(c, W, 0, (const double *)p[P_A6P], 1, 2, 6, 6, WA);
      mm(c, WA, 0, Rp, rk == 1, 4, 3, 3, Y); /* R.T: F when R is C */
      rc = 0;
    } else {
      PyObject *Y1 = PyObject_CallMethodOneArg(c->o[O_W], s_dot, c->o[O_AT]);
      PyObject *Y4 = Y1 == NULL ? NULL : PyObject_CallMethod(Y1, "reshape", "ii", 4, 3);
      Py_XDECREF(Y1);
      PyObject *RT = Y4 == NULL ? NULL : PyObject_GetAttr(Rs, s_T);
      rc = RT == NULL ? -1 : dot_into(Y4, RT, 4, 3, Y);
      Py_XDECREF(RT);
      Py_XDECREF(Y4);
    }
    Py_DECREF(Rs);
    if (rc < 0) return -1;
    memcpy(ps + 12, Y + 6, 6 * sizeof(double)); /* compensated */
    memcpy(ps + 18, Y, 6 * sizeof(double));     /* raw */
  }
  PyObject *cf = PyObject_CallNoArgs(c->o[O_CF]);
  if (cf == NULL) return -1;
  ps[24] = PyFloat_AsDouble(cf);
  Py_DECREF(cf);
  return PyErr_Occurred() ? -1 : 0;
}

static PyObject *call_slot(Ctx *c, int slot) {
  PyObject *pair = c->o[slot];
  return PyObject_Call(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1), NULL);
}

/* CartesianImpedanceController.compute into tau (see control/controllers/cic.py). */
static int cic(Ctx *c, int64_t row, double *tau) {
  int64_t *p = c->p;
  double *f = c->f;
  const int nv = c->nv, n = nv + 6;
  const double *q = (const double *)p[P_Q], *v = (const double *)p[P_V];
  PyObject *r = call_slot(c, O_JJTV);
  if (r == NULL) return -1;
  Py_DECREF(r);
  PyObject *oMf = call_slot(c, O_UFP), *J = NULL, *dJ = NULL, *M = NULL, *h = NULL;
  PyObject *rot = NULL, *rotT = NULL, *E = NULL, *lg = NULL;
  int rc = -1;
  double e[6], jv[6], u[6], Mv[256], Jv[96], djv[6], hv[32], tr[3];
  if (oMf == NULL) goto out;
  if ((J = call_slot(c, O_GFJ)) == NULL || (dJ = call_slot(c, O_GFJTV)) == NULL) goto out;
  if ((M = call_slot(c, O_CRBA)) == NULL || (h = call_slot(c, O_NLE)) == NULL) goto out;
  /* _task_acceleration */
  const double *rp = (const double *)p[P_REF_POS] + 3 * row;
  if (attr_into(oMf, s_translation, 1, 3, tr) < 0) goto out;
  for (int i = 0; i < 3; i++) e[i] = rp[i] - tr[i];
  memcpy((double *)p[P_REFROT], (const double *)p[P_REF_ROT] + 9 * row, 9 * sizeof(double));
  if ((rot = PyObject_GetAttr(oMf, s_rotation)) == NULL) goto out;
  const double *rotp = NULL;
  const int rk = p[P_GEMM] ? layout(rot, 3, 3, &rotp) : 0;
  if (rk) { /* E = R_d Rᵀ into the plan's E array (Rᵀ: F when R is C) */
    mm(c, (const double *)p[P_REFROT], 0, rotp, rk == 1, 3, 3, 3, (double *)p[P_EBUF]);
    E = c->o[O_EBUF];
    Py_INCREF(E);
  } else {
    if ((rotT = PyObject_GetAttr(rot, s_T)) == NULL) goto out;
    if ((E = PyObject_CallMethodOneArg(c->o[O_REFROT], s_dot, rotT)) == NULL) goto out;
  }
  if ((lg = PyObject_CallOneArg(c->o[O_LOG3], E)) == NULL) goto out;
  if (read_mat(lg, 1, 3, e + 3) < 0) goto out;
  if (mv(c, J, c->o[O_V], v, 0, 6, jv) < 0) goto out;
  const double *kp = (const double *)p[P_CIC_KP], *kd = (const double *)p[P_CIC_KD];
  for (int i = 0; i < 6; i++) u[i] = kp[i] * e[i] - kd[i] * jv[i];
  const double *acc = (const double *)p[P_REF_ACC] + 3 * row;
  const double *vel = (const double *)p[P_REF_VEL] + 3 * row;
  for (int i = 0; i < 3; i++) u[i] += acc[i] + kd[i] * vel[i];
  const double *wb = (const double *)p[P_REF_WB] + 3 * row;
  if (wb[0] != 0.0 || wb[1] != 0.0 || wb[2] != 0.0) {
    const double *wbd = (const double *)p[P_REF_WBD] + 3 * row;
    double x1[3], x2[3];
    memcpy((double *)p[P_WD], wb, 3 * sizeof(double));
    memcpy((double *)p[P_WDD], wbd, 3 * sizeof(double));
    if (dot_into(c->o[O_REFROT], c->o[O_WD], 1, 3, x1) < 0) goto out;
    if (dot_into(c->o[O_REFROT], c->o[O_WDD], 1, 3, x2) < 0) goto out;
    for (int i = 0; i < 3; i++) u[3 + i] += kd[3 + i] * x1[i] + x2[i];
  }
  if (p[P_CIC_USEINT]) {
    double *integral = (double *)p[P_CIC_INT];
    const double *ki = (const double *)p[P_CIC_KI];
    for (int i = 0; i < 3; i++) {
      double x = integral[i] + e[i] * f[F_CICDT];
      if (-f[F_ILO] > x) x = -f[F_ILO];
      if (f[F_IHI] < x) x = f[F_IHI];
      integral[i] = x;
      u[i] += ki[i] * x;
    }
  }
  /* _torque */
  double *b = (double *)p[P_CIC_B], *K = (double *)p[P_CIC_K];
  for (int j = 0; j < nv; j++) b[j] = f[F_QNULL + j] - q[j];
  for (int j = 0; j < nv; j++) b[j] = b[j] * f[F_NULLKP];
  for (int j = 0; j < nv; j++) b[j] = b[j] - f[F_NULLKD] * v[j];
  if (mv(c, dJ, c->o[O_V], v, 0, 6, djv) < 0) goto out;
  for (int i = 0; i < 6; i++) b[nv + i] = u[i] - djv[i];
  if (read_mat(M, nv, nv, Mv) < 0 || read_mat(J, 6, nv, Jv) < 0) goto out;
  for (int i = 0; i < nv; i++) /* K is Fortran-ordered: K[i, j] at i + n j */
    for (int j = 0; j < nv; j++) K[i + n * j] = Mv[i * nv + j];
  for (int rr = 0; rr < 6; rr++)
    for (int i = 0; i < nv; i++) K[i + n * (nv + rr)] = Jv[rr * nv + i];
  double *lu = (double *)p[P_CIC_LU], *xs = (double *)p[P_CIC_XS], work[64];
  int *piv = (int *)p[P_CIC_PIV], nn = n, lwork = n, info = 0, one = 1;
  char up = 'U';
  memcpy(lu, K, (size_t)(n * n) * sizeof(double));
  ((sytrf_fn)PyCapsule_GetPointer(c->o[O_SYTRF], PyCapsule_GetName(c->o[O_SYTRF])))(
      &up, &nn, lu, &nn, piv, work, &lwork, &info);
  if (info == 0) {
    memcpy(xs, b, (size_t)n * sizeof(double));
    ((sytrs_fn)PyCapsule_GetPointer(c->o[O_SYTRS], PyCapsule_GetName(c->o[O_SYTRS])))(
        &up, &nn, &one, lu, &nn, piv, xs, &nn, &info);
  } else { /* SymFactor(K).solve(b): the least-squares fallback, in Python */
    PyObject *fac = PyObject_CallOneArg(c->o[O_SYMFACTOR], c->o[O_K]);
    PyObject *x = fac == NULL ? NULL : PyObject_CallMethodOneArg(fac, s_solve, c->o[O_B]);
    Py_XDECREF(fac);
    int bad = x == NULL || read_mat(x, 1, n, xs) < 0;
    Py_XDECREF(x);
    if (bad) goto out;
  }
  double fj[32];
  if (mv(c, J, c->o[O_NEGF], xs + nv, 1, nv, fj) < 0 || read_mat(h, 1, nv, hv) < 0) goto out;
  for (int j = 0; j < nv; j++) tau[j] = b[j] - fj[j];
  for (int j = 0; j < nv; j++) tau[j] = tau[j] + hv[j];
  rc = 0;
out:
  Py_XDECREF(oMf);
  Py_XDECREF(J);
  Py_XDECREF(dJ);
  Py_XDECREF(M);
  Py_XDECREF(h);
  Py_XDECREF(rot);
  Py_XDECREF(rotT);
  Py_XDECREF(E);
  Py_XDECREF(lg);
  return rc;
}

#define CK(x)                  \
  do {                         \
    if ((x) == NULL) goto out; \
  } while (0)
#define CI(x)               \
  do {                      \
    if ((x) < 0) goto out;  \
  } while (0)

/* dsytrf of the controller's K (a copy, as scipy's wrapper makes) into lu, piv; its info */
static int factor_k(Ctx *c, int n) {
  int64_t *p = c->p;
  double *lu = (double *)p[P_CIC_LU], work[64];
  int nn = n, lwork = n, info = 0;
  char up = 'U';
  memcpy(lu, (const double *)p[P_CIC_K], (size_t)(n * n) * sizeof(double));
  ((sytrf_fn)PyCapsule_GetPointer(c->o[O_SYTRF], PyCapsule_GetName(c->o[O_SYTRF])))(
      &up, &nn, lu, &nn, (int *)p[P_CIC_PIV], work, &lwork, &info);
  return info;
}

/* x = solve(self._b): dsytrs on the factor, or SymFactor(K).solve(b) when it was singular */
static int solve_b(Ctx *c, int n, int info, double *x) {
  int64_t *p = c->p;
  if (info == 0) {
    int nn = n, one = 1, inf2 = 0;
    char up = 'U';
    memcpy(x, (const double *)p[P_CIC_B], (size_t)n * sizeof(double));
    ((sytrs_fn)PyCapsule_GetPointer(c->o[O_SYTRS], PyCapsule_GetName(c->o[O_SYTRS])))(
        &up, &nn, &one, (double *)p[P_CIC_LU], &nn, (int *)p[P_CIC_PIV], x, &nn, &inf2);
    return 0;
  }
  PyObject *fac = PyObject_CallOneArg(c->o[O_SYMFACTOR], c->o[O_K]);
  PyObject *r = fac == NULL ? NULL : PyObject_CallMethodOneArg(fac, s_solve, c->o[O_B]);
  Py_XDECREF(fac);
  int rc = r == NULL ? -1 : read_mat(r, 1, n, x);
  Py_XDECREF(r);
  return rc;
}

/* obj.method(motion).vector into out (6,) */
static int motion_op(Ctx *c, PyObject *obj, PyObject *method, PyObject *mo, double *out) {
  (void)c;
  PyObject *r = PyObject_CallMethodOneArg(obj, method, mo);
  int rc = r == NULL ? -1 : attr_into(r, s_vector, 1, 6, out);
  Py_XDECREF(r);
  return rc;
}

/* Se3LieController.compute_control into tau (control/controllers/se3_lie.py), without an
 * apparent inertia (the caller declines it): potential gradient, the singularity guard and
 * the two solves of _torque, in the Python law's operation order. */
static int se3_lie(Ctx *c, int64_t row, double *tau) {
  int64_t *p = c->p;
  double *f = c->f;
  const int nv = c->nv, n = nv + 6;
  const double *q = (const double *)p[P_Q], *v = (const double *)p[P_V];
  PyObject *oMf = NULL, *J = NULL, *dJ = NULL, *M = NULL, *C = NULL, *h = NULL;
  PyObject *Terr = NULL, *X = NULL, *Vr = NULL, *tmp = NULL, *tmp2 = NULL;
  int rc = -1;
  double V[6], vr[6], eV[6], fG[6], u[6], add[6], Mv[256], Jv[96], hv[32], tau0[32], x[32];
  double *K = (double *)p[P_CIC_K], *b = (double *)p[P_CIC_B];
  PyObject *r = call_slot(c, O_JJTV);
  CK(r);
  Py_DECREF(r);
  CK(oMf = call_slot(c, O_UFP));
  CK(J = call_slot(c, O_GFJ));
  CK(dJ = call_slot(c, O_GFJTV));
  CK(M = call_slot(c, O_CRBA));
  CK(C = call_slot(c, O_CORI));
  CK(h = call_slot(c, O_NLE));
  { /* the persistent SE3 (T_d) and Motions (V_d, V̇_d) hold the row: their storage, written */
    const double *T = (const double *)p[P_REF_T] + 16 * row;
    double *Rd = (double *)p[P_TD], *pd = (double *)p[P_TDT]; /* rotation: column-major */
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) Rd[i + 3 * j] = T[4 * i + j];
      pd[i] = T[4 * i + 3];
    }
    memcpy((double *)p[P_VD], (const double *)p[P_REF_VD] + 6 * row, 6 * sizeof(double));
    memcpy((double *)p[P_VDD], (const double *)p[P_REF_VDD] + 6 * row, 6 * sizeof(double));
  }
  CK(Terr = PyObject_CallMethodOneArg(c->o[O_TD], s_actInv, oMf));
  CK(X = PyObject_CallMethodNoArgs(Terr, s_inverse));
  CI(mv(c, J, c->o[O_V], v, 0, 6, V));
  CK(Vr = PyObject_CallMethodOneArg(X, s_act, c->o[O_VD]));
  CI(attr_into(Vr, s_vector, 1, 6, vr));
  for (int i = 0; i < 6; i++) eV[i] = V[i] - vr[i];
  const double *kp = (const double *)p[P_SE3_KP], *kd = (const double *)p[P_CIC_KD];
  if (p[P_SE3_LOG]) { /* f = Jlog6(T̃)ᵀ (kp ξ) */
    double xi[6], *t6 = (double *)p[P_TMP6];
    PyObject *lg = PyObject_CallOneArg(c->o[O_LOG6], Terr);
    CK(lg);
    rc = attr_into(lg, s_vector, 1, 6, xi);
    Py_DECREF(lg);
    CI(rc);
    rc = -1;
    for (int i = 0; i < 6; i++) t6[i] = kp[i] * xi[i];
    CK(tmp = PyObject_CallOneArg(c->o[O_JLOG6], Terr));
    CK(tmp2 = PyObject_GetAttr(tmp, s_T));
    CI(dot_into(tmp2, c->o[O_TMP6], 1, 6, fG));
  } else { /* f = (Eᵀ (kp_t t), vee(K_R E − (K_R E)ᵀ)) */
    double t[3], A[9], *t3 = (double *)p[P_TMP3];
    const double *kpt = (const double *)p[P_SE3_KPT];
    CI(attr_into(Terr, s_translation, 1, 3, t));
    CK(tmp = PyObject_GetAttr(Terr, s_rotation));
    for (int i = 0; i < 3; i++) t3[i] = kpt[i] * t[i];
    const double *Ep = NULL;
    const int ek = p[P_GEMM] && p[P_GEMV] ? layout(tmp, 3, 3, &Ep) : 0;
    if (ek) { /* Eᵀ (kp_t t): Eᵀ is C when E is F (RowMajor), else F (ColMajor); K_R E */
      memset(fG, 0, 3 * sizeof(double));
      ((gemv_fn)p[P_GEMV])(ek == 2 ? 101 : 102, 111, 3, 3, 1.0, Ep, 3, t3, 1, 0.0, fG, 1);
      mm(c, (const double *)p[P_KRP], 0, Ep, ek == 2, 3, 3, 3, A);
    } else {
      CK(tmp2 = PyObject_GetAttr(tmp, s_T));
      CI(dot_into(tmp2, c->o[O_TMP3], 1, 3, fG));
      CI(dot_into(c->o[O_KR], tmp, 3, 3, A));
    }
    fG[3] = A[7] - A[5], fG[4] = A[2] - A[6], fG[5] = A[3] - A[1];
  }
  for (int i = 0; i < 6; i++) u[i] = -fG[i];
  for (int i = 0; i < 6; i++) u[i] = u[i] - kd[i] * eV[i];
  { /* _near_singular: np.dot(J, J.T, out=JJt), mju_cholFactor, Π L_ii² */
    PyObject *JT = PyObject_GetAttr(J, s_T);
    CK(JT);
    PyObject *jj = PyObject_CallFunctionObjArgs(c->o[O_NPDOT], J, JT, c->o[O_JJT], NULL);
    Py_DECREF(JT);
    CK(jj);
    Py_DECREF(jj);
    double *JJt = (double *)p[P_JJT];
    int drop = ((chol_fn)p[P_CHOL])(JJt, 6, 1e-15) < 6;
    if (!drop) {
      double prod = 1.0;
      for (int i = 0; i < 6; i++) prod *= JJt[7 * i];
      drop = !(pow(prod, 2.0) >= f[F_SING2]);
    }
    p[P_SE3_DROP] = drop;
  }
  const int dropped = (int)p[P_SE3_DROP];
  if (!dropped) {
    CI(motion_op(c, X, s_act, c->o[O_VDD], add));
    for (int i = 0; i < 6; i++) u[i] += add[i];
    memcpy((double *)p[P_SMV], V, 6 * sizeof(double));
    CI(motion_op(c, Vr, s_cross, c->o[O_MV], add)); /* pin.Motion(V) */
    for (int i = 0; i < 6; i++) u[i] += add[i];
  }
  /* _torque */
  CI(read_mat(M, nv, nv, Mv));
  CI(read_mat(J, 6, nv, Jv));
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) K[i + n * j] = Mv[i * nv + j];
  for (int rr = 0; rr < 6; rr++)
    for (int i = 0; i < nv; i++) K[i + n * (nv + rr)] = Jv[rr * nv + i];
  for (int j = 0; j < nv; j++) tau0[j] = f[F_QNULL + j] - q[j];
  for (int j = 0; j < nv; j++) tau0[j] = tau0[j] * f[F_NULLKP];
  for (int j = 0; j < nv; j++) tau0[j] = tau0[j] - f[F_NULLKD] * v[j];
  double djv[6];
  if (dropped) {
    memcpy(b, tau0, (size_t)nv * sizeof(double));
    CI(mv(c, dJ, c->o[O_V], v, 0, 6, djv));
    for (int i = 0; i < 6; i++) b[nv + i] = u[i] - djv[i];
  }
  const int info = factor_k(c, n);
  if (!dropped) {
    double *w = (double *)p[P_SW], *vw = (double *)p[P_SVW], cw[32];
    for (int j = 0; j < nv; j++) b[j] = 0.0;
    for (int i = 0; i < 6; i++) b[nv + i] = eV[i];
    CI(solve_b(c, n, info, x));
    memcpy(w, x, (size_t)nv * sizeof(double));
    CI(mv(c, C, c->o[O_SW], w, 0, nv, cw));
    for (int j = 0; j < nv; j++) b[j] = tau0[j] + cw[j];
    for (int j = 0; j < nv; j++) vw[j] = v[j] - w[j];
    CI(mv(c, dJ, c->o[O_SVW], vw, 0, 6, djv));
    for (int i = 0; i < 6; i++) b[nv + i] = u[i] - djv[i];
  }
  CI(solve_b(c, n, info, x));
  double *fv = (double *)p[P_SF], fj[32];
  for (int i = 0; i < 6; i++) fv[i] = -x[nv + i];
  CI(mv(c, J, c->o[O_SF], fv, 1, nv, fj));
  CI(read_mat(h, 1, nv, hv));
  for (int j = 0; j < nv; j++) tau[j] = fj[j] + hv[j];
  for (int j = 0; j < nv; j++) tau[j] = tau[j] + tau0[j];
  rc = 0;
out:
  Py_XDECREF(oMf);
  Py_XDECREF(J);
  Py_XDECREF(dJ);
  Py_XDECREF(M);
  Py_XDECREF(C);
  Py_XDECREF(h);
  Py_XDECREF(Terr);
  Py_XDECREF(X);
  Py_XDECREF(Vr);
  Py_XDECREF(tmp);
  Py_XDECREF(tmp2);
  return rc;
}

/* A law left in Python (hqp): its compute through native_laws' closure; tau (nv,) read back */
static int py_law(Ctx *c, int64_t row, double *tau) {
  PyObject *k = PyLong_FromLongLong(row);
  PyObject *r = k == NULL ? NULL : PyObject_CallOneArg(c->o[O_PYLAW], k);
  Py_XDECREF(k);
  int rc = r == NULL ? -1 : read_mat(r, 1, c->nv, tau);
  Py_XDECREF(r);
  return rc;
}

/* friction feed-forward, the finiteness test, the limiter: tau in place; 0, or NONFINITE */
static int finish_torque(Ctx *c, double *tau) {
  int64_t *p = c->p;
  double *f = c->f;
  const int nv = c->nv;
  const double *v = (const double *)p[P_V];
  if (p[P_FRIC]) {
    double *x = (double *)p[P_X], ff[32];
    const double *src = p[P_FRIC] == 1 ? v : tau;
    const double *coul = (const double *)p[P_COUL], *damp = (const double *)p[P_DAMP];
    for (int j = 0; j < nv; j++) x[j] = src[j] / f[F_EPS];
    PyObject *r = PyObject_CallFunctionObjArgs(c->o[O_TANH], c->o[O_X], c->o[O_X], NULL);
    if (r == NULL) return PYERR;
    Py_DECREF(r);
    for (int j = 0; j < nv; j++) ff[j] = coul[j] * x[j];
    if (p[P_USEDAMP])
      for (int j = 0; j < nv; j++) ff[j] = ff[j] + damp[j] * v[j];
    for (int j = 0; j < nv; j++) tau[j] = tau[j] + ff[j];
  }
  double sum = 0.0;
  for (int j = 0; j < nv; j++) sum += tau[j];
  if (!isfinite(sum)) return NONFINITE;
  const double *hi = (const double *)p[P_HI];
  double *prev = (double *)p[P_PREV];
  int64_t *stats = (int64_t *)p[P_STATS]; /* torque_saturated, rate_limited */
  if (p[P_RATED] && p[P_HAVEPREV]) {
    int changed = 0;
    for (int j = 0; j < nv; j++) {
      double lo = prev[j] - f[F_RATE], up = prev[j] + f[F_RATE], y = tau[j];
      if (!(y >= lo)) y = lo; /* np.maximum, finite values */
      if (!(y <= up)) y = up;
      if (y != tau[j]) changed = 1;
      tau[j] = y;
    }
    if (changed) stats[1] += 1;
  }
  int over = 0;
  for (int j = 0; j < nv; j++)
    if (fabs(tau[j]) > hi[j]) over = 1;
  if (over) {
    stats[0] += 1;
    for (int j = 0; j < nv; j++) {
      double y = tau[j];
      if (!(y >= -hi[j])) y = -hi[j];
      if (!(y <= hi[j])) y = hi[j];
      tau[j] = y;
    }
  }
  memcpy(prev, tau, (size_t)nv * sizeof(double));
  p[P_HAVEPREV] = 1;
  return DONE;
}

static int run_periods(Ctx *c) {
  int64_t *p = c->p;
  const int nv = c->nv;
  void *m = (void *)p[P_MODEL], *d = (void *)p[P_DATA];
  const step_fn step = (step_fn)p[P_STEP], kin = (step_fn)p[P_KIN];
  const tls_fn tls = (tls_fn)p[P_TLS];
  double *q = (double *)p[P_Q], *v = (double *)p[P_V], *qp = (double *)p[P_QP];
  double *vp = (double *)p[P_VP], *tau = (double *)p[P_TAU], *ps = (double *)p[P_PSTATE];
  const double *qpos = (const double *)p[P_QPOS], *qvel = (const double *)p[P_QVEL];
  double *ctrl = (double *)p[P_CTRL];
  const int32_t *badacc = (const int32_t *)p[P_BADACC];
  const int64_t k0 = p[P_REF_ROW], nsub = p[P_NSUB];
  for (int64_t k = p[P_K0]; k < p[P_K1]; k++) {
    const int64_t row = k - k0;
    const int law = (int)p[P_LAW];
    if ((law == 3 ? py_law(c, row, tau) : law == 2 ? se3_lie(c, row, tau) : cic(c, row, tau)) < 0)
      return PYERR;
    int code = finish_torque(c, tau);
    if (code != DONE) {
      p[P_KDONE] = k;
      return code;
    }
    ((double *)p[P_COL_T])[row] = (double)k * c->f[F_DT];
    memcpy((double *)p[P_COL_Q] + row * nv, q, (size_t)nv * sizeof(double));
    memcpy((double *)p[P_COL_V] + row * nv, v, (size_t)nv * sizeof(double));
    memcpy((double *)p[P_COL_TAU] + row * nv, tau, (size_t)nv * sizeof(double));
    memcpy((double *)p[P_COL_P] + row * 3, ps, 3 * sizeof(double));
    memcpy((double *)p[P_COL_R] + row * 9, ps + 3, 9 * sizeof(double));
    memcpy((double *)p[P_COL_W] + row * 6, ps + 12, 6 * sizeof(double));
    ((double *)p[P_COL_CF])[row] = ps[24];
    memcpy((double *)p[P_COL_RAW] + row * 6, ps + 18, 6 * sizeof(double));
    memcpy(qp, q, (size_t)nv * sizeof(double));
    memcpy(vp, v, (size_t)nv * sizeof(double));
    memcpy(ctrl, tau, (size_t)nv * sizeof(double));
    const log_handler previous = tls(on_log);
    forward = previous != NULL ? previous : ((global_fn)p[P_GLOBAL])();
    if (setjmp(error_jump) != 0) {
      tls(previous);
      p[P_KDONE] = k;
      return FATAL;
    }
    for (int64_t s = 0; s < nsub; s++) step(m, d);
    kin(m, d);
    tls(previous);
    if (*badacc) {
      p[P_KDONE] = k;
      return BADACC;
    }
    memcpy(q, qpos, (size_t)nv * sizeof(double));
    memcpy(v, qvel, (size_t)nv * sizeof(double));
    if (law == 3) { /* the Python law's new (q, v) objects, and its observer's update */
      PyObject *r = PyObject_CallNoArgs(c->o[O_POST]);
      if (r == NULL) return PYERR;
      Py_DECREF(r);
    }
    if (sense(c, 0) < 0) return PYERR;
    p[P_KDONE] = k + 1;
  }
  return DONE;
}

static PyObject *run(PyObject *self, PyObject *args) {
  PyObject *plan_addr, *fpar_addr, *objects;
  int first;
  if (!PyArg_ParseTuple(args, "OOO!p", &plan_addr, &fpar_addr, &PyTuple_Type, &objects, &first))
    return NULL;
  if (PyTuple_GET_SIZE(objects) != O_N) {
    PyErr_SetString(PyExc_ValueError, "dock kernel: wrong number of objects");
    return NULL;
  }
  Ctx c;
  c.p = (int64_t *)PyLong_AsVoidPtr(plan_addr);
  c.f = (double *)PyLong_AsVoidPtr(fpar_addr);
  if (c.p == NULL || c.f == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "dock kernel: address 0");
    return NULL;
  }
  c.o = &PyTuple_GET_ITEM(objects, 0);
  c.nv = (int)c.p[P_NV];
  if (c.nv < 1 || c.nv > 16) {
    PyErr_SetString(PyExc_ValueError, "dock kernel: nv out of range");
    return NULL;
  }
  error_msg = (char *)c.p[P_MSG];
  int code = first ? (sense(&c, 1) < 0 ? PYERR : DONE) : run_periods(&c);
  if (code == PYERR) return NULL;
  return PyLong_FromLong(code);
}

static PyObject *slot_count(PyObject *self, PyObject *unused) {
  return Py_BuildValue("iii", P_NSLOTS, F_N, O_N);
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(plan, params, objects, first): periods of the plan; 0 done, 1 non-finite torque, "
     "2 bad acceleration, 3 MuJoCo fatal error."},
    {"slot_count", slot_count, METH_NOARGS, "(int64 slots, float64 slots, objects)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernel", "The docking loop in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__kernel(void) {
  s_dot = PyUnicode_InternFromString("dot");
  s_T = PyUnicode_InternFromString("T");
  s_translation = PyUnicode_InternFromString("translation");
  s_rotation = PyUnicode_InternFromString("rotation");
  s_vector = PyUnicode_InternFromString("vector");
  s_solve = PyUnicode_InternFromString("solve");
  s_actInv = PyUnicode_InternFromString("actInv");
  s_inverse = PyUnicode_InternFromString("inverse");
  s_act = PyUnicode_InternFromString("act");
  s_cross = PyUnicode_InternFromString("cross");
  if (!s_dot || !s_T || !s_translation || !s_rotation || !s_vector || !s_solve || !s_actInv ||
      !s_inverse || !s_act || !s_cross)
    return NULL;
  return PyModule_Create(&module);
}
