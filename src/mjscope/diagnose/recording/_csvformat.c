/* CSV text of a float64 block, each column "%.10g" or "%d", byte for byte Python's "%".
 *
 * mjscope.diagnose.recording.csvsink.format_rows calls it where it is built. A "%.10g" cell is
 * PyOS_double_to_string(x, 'g', 10, 0, NULL): the very function Python's "%.10g" % x calls, so
 * the bytes are the same by construction (inf, nan, -0.0 included). A "%d" cell is the value
 * truncated toward zero, as "%d" % x does. A non-finite value in a "%d" column makes the whole
 * block "%.10g" (what format_rows does); a finite one beyond ±2^63 returns None (Python then
 * formats the block: it prints the big integer). A cell whose bits equal the row above's
 * copies that row's text (counters, unused force terms: constant for whole blocks).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CELL 32 /* longest cell text: "%.10g" ≤ 17 chars, "%lld" ≤ 20 */

static PyObject *format_block(PyObject *self, PyObject *args) {
  unsigned long long address;
  Py_ssize_t rows, cols, row_stride, col_stride, nkinds;
  const char *kinds;
  (void)self;
  if (!PyArg_ParseTuple(args, "Knnnny#", &address, &rows, &cols, &row_stride, &col_stride,
                        &kinds, &nkinds))
    return NULL;
  if (nkinds != cols || rows < 0 || cols < 0) {
    PyErr_SetString(PyExc_ValueError, "one kind per column ('g' or 'd') and rows >= 0");
    return NULL;
  }
  const char *base = (const char *)(uintptr_t)address;
#define AT(i, j) (*(const double *)(base + (i) * row_stride + (j) * col_stride))
  int all_g = 0;
  for (Py_ssize_t j = 0; j < cols && !all_g; j++) {
    if (kinds[j] != 'd') continue;
    for (Py_ssize_t i = 0; i < rows; i++) {
      double x = AT(i, j);
      if (!isfinite(x)) {
        all_g = 1; /* as format_rows: the block's integers written as floats */
        break;
      }
      if (!(x < 9223372036854775808.0 && x >= -9223372036854775808.0)) Py_RETURN_NONE;
    }
  }
  size_t cap = (size_t)rows * (size_t)cols * (CELL + 1) + 1, n = 0;
  char *out = PyMem_Malloc(cap > 0 ? cap : 1);
  char *last = PyMem_Malloc((size_t)(cols > 0 ? cols : 1) * CELL); /* row above's cells */
  size_t *len = PyMem_Malloc((size_t)(cols > 0 ? cols : 1) * sizeof(size_t));
  uint64_t *bits = PyMem_Malloc((size_t)(cols > 0 ? cols : 1) * sizeof(uint64_t));
  if (out == NULL || last == NULL || len == NULL || bits == NULL) {
    PyMem_Free(out);
    PyMem_Free(last);
    PyMem_Free(len);
    PyMem_Free(bits);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < rows; i++) {
    for (Py_ssize_t j = 0; j < cols; j++) {
      double x = AT(i, j);
      uint64_t b;
      memcpy(&b, &x, sizeof b);
      char *cell = last + j * CELL;
      if (i == 0 || b != bits[j]) {
        bits[j] = b;
        if (kinds[j] == 'd' && !all_g) {
          len[j] = (size_t)snprintf(cell, CELL, "%lld", (long long)x);
        } else {
          char *s = PyOS_double_to_string(x, 'g', 10, 0, NULL);
          if (s == NULL) {
            PyMem_Free(out);
            PyMem_Free(last);
            PyMem_Free(len);
            PyMem_Free(bits);
            return NULL;
          }
          size_t k = strlen(s);
          if (k >= CELL) k = CELL - 1; /* cannot happen for %.10g */
          memcpy(cell, s, k);
          len[j] = k;
          PyMem_Free(s);
        }
      }
      memcpy(out + n, cell, len[j]);
      n += len[j];
      out[n++] = j + 1 < cols ? ',' : '\n';
    }
  }
#undef AT
  PyObject *text = PyUnicode_DecodeASCII(out, (Py_ssize_t)n, "strict");
  PyMem_Free(out);
  PyMem_Free(last);
  PyMem_Free(len);
  PyMem_Free(bits);
  return text;
}

static PyMethodDef methods[] = {
    {"format_block", format_block, METH_VARARGS,
     "format_block(address, rows, cols, row_stride, col_stride, kinds) -> str | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_csvformat", "CSV text of a float64 block, as Python's '%'.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__csvformat(void) { return PyModule_Create(&module); }
