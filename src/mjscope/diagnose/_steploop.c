/* The diagnose rollout's per-step loop in C: control, mj_step, gather, probes, event test.
 *
 * mjscope.diagnose.native_loop drives it; this file only runs steps. Nothing here links
 * against MuJoCo: the caller passes the addresses of mj_step, mj_differentiatePos,
 * mj_contactForce and MuJoCo's thread-local log-handler hook (taken from the libmujoco the
 * bindings loaded) and of every buffer, in one int64 "plan" array (slot names in
 * native_loop.PLAN_SLOTS, same order).
 *
 * Per step, as diagnose/loop.py does it in Python: the control row into ctrl, the held motors'
 * feedback (MotorHold's simple case), mj_step (every 16th timed: wall and thread CPU), one word
 * copy per gathered source word, the equality probe's read, the sampled step's contacts into
 * the capture buffer (ContactDetailProbe), then the event test. An event (a sampled step C
 * leaves to Python, the watched contact count past its limit, a BADQPOS/BADQVEL/BADQACC
 * warning) returns with the row's index, and Python does the rest of that row. A call also
 * returns once it has run its time slice (so Ctrl-C is answered) and at the plan's stop row.
 *
 * mju_error inside mj_step (MuJoCo's fatal errors) longjmps back here from a thread-local log
 * handler, the way MuJoCo's own bindings trap it; other messages (warnings) go on to the
 * handler that had them before. The message is kept for Python's mujoco.FatalError.
 * Built with -ffp-contract=off: the arithmetic is Python's and NumPy's, bit for bit.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../sim/mjlog.h"

typedef void (*step_fn)(const void *m, void *d);
typedef void (*diffpos_fn)(const void *m, double *qvel, double dt, const double *qpos1,
                           const double *qpos2);
typedef void (*force_fn)(const void *m, const void *d, int id, double result[6]);

/* plan slots: keep in this order, native_loop.PLAN_SLOTS names them */
enum {
  P_MODEL, P_DATA, P_STEP, P_TLS, P_GLOBAL, P_DIFFPOS,
  P_CTRL, P_NU, P_NOISE,                        /* noise: (rows, nu) float64 or 0 */
  P_COUNT, P_LIMIT,                             /* watched int32 count or 0 */
  P_WARN, P_WSTRIDE, P_WQPOS, P_WQVEL, P_WQACC, /* warning.number base, stride [B], indices */
  P_I, P_STOP, P_TICK, P_DUE, P_EVERYCPU,       /* state: row, stop row, next timed, sampled */
  P_TIMES, P_YIELD,                             /* float64 (wall, cpu); time slice [ns] */
  P_SAMPLED,                                    /* steps timed (int64 slot) */
  P_MSG,                                        /* char[1024]: a fatal error's message */
  P_HOLD, P_HOLD_K, P_HOLD_NQ, P_HOLD_NV,       /* held motors: 0 or a hold block */
  P_HOLD_Q0, P_HOLD_ERR, P_HOLD_QVEL, P_HOLD_QPOS, P_HOLD_BIAS, P_HOLD_PASSIVE,
  P_HOLD_KP, P_HOLD_KD, P_HOLD_TAU, P_HOLD_DOFS, P_HOLD_SCALE, P_HOLD_LO, P_HOLD_HI,
  P_HOLD_MOTORS,
  P_CAP, P_CAP_N, P_CAP_MAX, P_SEVERY, P_STEP0,  /* sampled contacts: buffer, count, ... */
  P_NCON, P_TIME, P_SLOTS, P_FORCE, P_C_STRIDE,  /* ncon, time, contacts handled, ... */
  P_C_DIST, P_C_GEOM, P_C_DIM, P_C_EXCLUDE, P_C_FRICTION, P_C_SOLREF, P_C_SOLIMP,
  P_EQ, P_EQ_NE, P_EQ_POSF, P_EQ_IDF, P_EQ_N,  /* equalities: 0 or EqualityProbe.native */
  P_EQ_WELD, P_EQ_SCALE, P_EQ_PMAX, P_EQ_RMAX, P_EQ_PLAST, P_EQ_RLAST, P_EQ_WORST,
  P_EQ_STEPS, P_EQ_CELLS,
  P_NGROUPS, P_GROUPS                           /* then 5 slots per group */
};

enum { CAP_WIDTH = 24 }; /* contact_pairs.FIELDS: step, k, g1, g2, dist, dim, mu, f_n, f_t1,
                            f_t2, vt, time; then friction[5], solref[2], solimp[5] */

enum { DONE = 0, EVENT = 1, FATAL = 2 };

static inline int64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* MotorHold.__call__ for motors on distinct hinges/slides, in NumPy's operation order. */
static void hold_motors(const int64_t *p) {
  const int64_t k = p[P_HOLD_K], nv = p[P_HOLD_NV];
  double *err = (double *)p[P_HOLD_ERR], *tau = (double *)p[P_HOLD_TAU];
  const double *qvel = (const double *)p[P_HOLD_QVEL];
  const double *bias = (const double *)p[P_HOLD_BIAS];
  const double *passive = (const double *)p[P_HOLD_PASSIVE];
  const double *kp = (const double *)p[P_HOLD_KP], *kd = (const double *)p[P_HOLD_KD];
  const int64_t *dofs = (const int64_t *)p[P_HOLD_DOFS];
  const int64_t *motors = (const int64_t *)p[P_HOLD_MOTORS];
  const double *scale = (const double *)p[P_HOLD_SCALE];
  const double *lo = (const double *)p[P_HOLD_LO], *hi = (const double *)p[P_HOLD_HI];
  double *ctrl = (double *)p[P_CTRL];
  ((diffpos_fn)p[P_DIFFPOS])((const void *)p[P_MODEL], err, 1.0,
                             (const double *)p[P_HOLD_QPOS], (const double *)p[P_HOLD_Q0]);
  for (int64_t j = 0; j < nv; j++) {
    double a = bias[j] - passive[j];
    double b = kp[j] * err[j];
    double c = kd[j] * qvel[j];
    tau[j] = (a + b) - c;
  }
  for (int64_t r = 0; r < k; r++) {
    double u = tau[dofs[r]] / scale[r];
    /* np.clip(u, lo, hi): minimum(maximum(u, lo), hi), NaN kept */
    if (!isnan(u)) {
      if (u < lo[r]) u = lo[r];
      if (u > hi[r]) u = hi[r];
    }
    ctrl[motors[r]] = u;
  }
}

/* The sampled row's contacts into the capture buffer (ContactDetailProbe.drain reads them);
 * 0 when it needs Python instead: more contacts than the slots, a condim-1 contact (its slip
 * speed), a full buffer. */
static int capture(int64_t *p, int64_t row) {
  const int32_t ncon = *(const int32_t *)p[P_NCON];
  int64_t *count = (int64_t *)p[P_CAP_N];
  if (ncon == 0) return 1;
  if (ncon > p[P_SLOTS] || *count + ncon > p[P_CAP_MAX]) return 0;
  const int64_t st = p[P_C_STRIDE];
  const char *dim = (const char *)p[P_C_DIM], *exclude = (const char *)p[P_C_EXCLUDE];
  for (int32_t k = 0; k < ncon; k++)
    if (*(const int32_t *)(dim + k * st) == 1 && *(const int32_t *)(exclude + k * st) == 0)
      return 0;
  const char *dist = (const char *)p[P_C_DIST], *geom = (const char *)p[P_C_GEOM];
  const char *fr = (const char *)p[P_C_FRICTION], *sr = (const char *)p[P_C_SOLREF];
  const char *si = (const char *)p[P_C_SOLIMP];
  double *out = (double *)p[P_CAP] + *count * CAP_WIDTH;
  double f6[6];
  for (int32_t k = 0; k < ncon; k++) {
    if (*(const int32_t *)(exclude + k * st)) continue;
    ((force_fn)p[P_FORCE])((const void *)p[P_MODEL], (const void *)p[P_DATA], k, f6);
    const int32_t *g = (const int32_t *)(geom + k * st);
    out[0] = (double)(p[P_STEP0] + row);
    out[1] = k;
    out[2] = g[0];
    out[3] = g[1];
    out[4] = *(const double *)(dist + k * st);
    out[5] = *(const int32_t *)(dim + k * st);
    out[6] = *(const double *)(fr + k * st);
    out[7] = f6[0];
    out[8] = f6[1];
    out[9] = f6[2];
    out[10] = NAN; /* vt: only condim 1 needs it, and those rows are Python's */
    out[11] = *(const double *)p[P_TIME];
    memcpy(out + 12, fr + k * st, 5 * sizeof(double));
    memcpy(out + 17, sr + k * st, 2 * sizeof(double));
    memcpy(out + 19, si + k * st, 5 * sizeof(double));
    out += CAP_WIDTH;
    *count += 1;
  }
  return 1;
}

/* np.maximum: NaN wins */
static inline double maximum(double a, double b) { return (a >= b || isnan(a)) ? a : b; }

/* EqualityProbe.read: the step's largest equality violation into its column, per equality
 * the last, largest and worst step (its arithmetic in the same order, see _sumsq). */
static void equality_step(const int64_t *p, int64_t row) {
  const int32_t ne = *(const int32_t *)p[P_EQ_NE];
  int64_t *steps = (int64_t *)p[P_EQ_STEPS];
  double *cell = (double *)p[P_EQ_CELLS] + row;
  const int64_t step = *steps;
  *steps = step + 1;
  if (ne == 0) {
    *cell = 0.0;
    return;
  }
  const double *pos = *(double *const *)p[P_EQ_POSF];
  const int32_t *ids = *(int32_t *const *)p[P_EQ_IDF];
  const int64_t neq = p[P_EQ_N], *weld = (const int64_t *)p[P_EQ_WELD];
  const double *scale = (const double *)p[P_EQ_SCALE];
  double *pmax = (double *)p[P_EQ_PMAX], *rmax = (double *)p[P_EQ_RMAX];
  double *plast = (double *)p[P_EQ_PLAST], *rlast = (double *)p[P_EQ_RLAST];
  int64_t *worst = (int64_t *)p[P_EQ_WORST];
  for (int64_t e = 0; e < neq; e++) plast[e] = rlast[e] = 0.0;
  int32_t k = 0;
  while (k < ne) {
    const int32_t e = ids[k];
    int32_t end = k + 1;
    while (end < ne && ids[end] == e) end++;
    const int32_t rows = end - k;
    int32_t n = weld[e] ? 3 : rows;
    if (n > ne - k) n = ne - k; /* a slice past the end is shorter */
    double total = 0.0;
    for (int32_t j = 0; j < n; j++) total += pos[k + j] * pos[k + j];
    plast[e] = sqrt(total);
    if (weld[e] && rows == 6) {
      total = 0.0;
      for (int32_t j = 0; j < 3; j++) {
        const double r = pos[k + 3 + j] / scale[e];
        total += r * r;
      }
      double x = sqrt(total);
      if (!(x < 1.0)) x = 1.0; /* min(1.0, x), as Python's min picks */
      rlast[e] = 2.0 * asin(x);
    }
    k += rows;
  }
  double top = plast[0];
  for (int64_t e = 0; e < neq; e++) {
    if (plast[e] > pmax[e]) worst[e] = step;
    pmax[e] = maximum(pmax[e], plast[e]);
    rmax[e] = maximum(rmax[e], rlast[e]);
    if (e) top = maximum(top, plast[e]);
  }
  *cell = top;
}

static int run_steps(int64_t *p) {
  void *m = (void *)p[P_MODEL], *d = (void *)p[P_DATA];
  const step_fn step = (step_fn)p[P_STEP];
  const tls_fn tls = (tls_fn)p[P_TLS];
  double *ctrl = (double *)p[P_CTRL];
  const int64_t nu = p[P_NU];
  const double *noise = (const double *)p[P_NOISE];
  const int32_t *count = (const int32_t *)p[P_COUNT];
  const int32_t limit = (int32_t)p[P_LIMIT];
  const char *warn = (const char *)p[P_WARN];
  const int64_t ws = p[P_WSTRIDE];
  const int32_t *w_qpos = (const int32_t *)(warn + ws * p[P_WQPOS]);
  const int32_t *w_qvel = (const int32_t *)(warn + ws * p[P_WQVEL]);
  const int32_t *w_qacc = (const int32_t *)(warn + ws * p[P_WQACC]);
  const int64_t every = p[P_EVERYCPU], stop = p[P_STOP], severy = p[P_SEVERY];
  const int cap = p[P_CAP] != 0, eq = p[P_EQ] != 0;
  int64_t due = p[P_DUE];
  const int64_t ngroups = p[P_NGROUPS];
  const int64_t *groups = p + P_GROUPS;
  double *times = (double *)p[P_TIMES];
  const int hold = p[P_HOLD] != 0;
  int64_t i = p[P_I], tick = p[P_TICK];
  const int64_t slice = p[P_YIELD], started = now_ns(CLOCK_MONOTONIC);

  error_msg = (char *)p[P_MSG];
  const log_handler previous = tls(on_log);
  forward = previous != NULL ? previous : ((global_fn)p[P_GLOBAL])();
  if (setjmp(error_jump) != 0) {
    tls(previous);
    return FATAL; /* p[P_I] holds the row whose step failed */
  }
  while (i < stop) {
    int timed = i == tick;
    if (noise != NULL) memcpy(ctrl, noise + i * nu, (size_t)nu * sizeof(double));
    if (hold) hold_motors(p);
    p[P_I] = i;
    if (!timed) {
      step(m, d);
    } else {
      int64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns(CLOCK_MONOTONIC);
      step(m, d);
      int64_t t1 = now_ns(CLOCK_MONOTONIC);
      times[1] += (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e-9;
      times[0] += (double)(t1 - t0) * 1e-9;
      p[P_SAMPLED] += 1;
      tick += every;
    }
    for (int64_t g = 0; g < ngroups; g++) {
      const int64_t *gp = groups + 5 * g;
      const int32_t *base = (const int32_t *)gp[0];
      const int64_t *idx = (const int64_t *)gp[1];
      const int64_t n = gp[2];
      int32_t *row = (int32_t *)gp[3] + i * gp[4];
      for (int64_t k = 0; k < n; k++) row[k] = base[idx[k]];
    }
    if (eq) equality_step(p, i);
    if (i == due && cap && capture(p, i)) due += severy; /* sampled here, no event */
    if (i == due || (count != NULL && *count > limit) || *w_qacc || *w_qvel || *w_qpos) {
      tls(previous);
      p[P_I] = i;
      p[P_TICK] = tick;
      p[P_DUE] = due;
      return EVENT;
    }
    i++;
    if (timed && now_ns(CLOCK_MONOTONIC) - started >= slice) break;
  }
  tls(previous);
  p[P_I] = i;
  p[P_TICK] = tick;
  p[P_DUE] = due;
  return DONE;
}

static PyObject *run(PyObject *self, PyObject *arg) {
  int64_t *plan = (int64_t *)PyLong_AsVoidPtr(arg);
  if (plan == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "plan address is 0");
    return NULL;
  }
  int code;
  Py_BEGIN_ALLOW_THREADS
  code = run_steps(plan);
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(code);
}

static PyObject *slot_count(PyObject *self, PyObject *unused) {
  return PyLong_FromLong(P_GROUPS);
}

static PyObject *capture_width(PyObject *self, PyObject *unused) {
  return PyLong_FromLong(CAP_WIDTH);
}

static PyMethodDef methods[] = {
    {"run", run, METH_O, "Run steps of the plan at this address; 0 done, 1 event, 2 fatal."},
    {"slot_count", slot_count, METH_NOARGS, "Slots before the groups' (a layout check)."},
    {"capture_width", capture_width, METH_NOARGS, "Floats per captured contact (a check)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_steploop", "The diagnose rollout's step loop in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__steploop(void) { return PyModule_Create(&module); }
