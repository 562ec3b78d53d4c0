/* _chain.c's C API, which _armstep.c takes through the capsule mjscope.teleop._chain._C_API
 * (one struct for both; CHAIN_API_VERSION guards a stale build of either). */
#ifndef MJSCOPE_CHAIN_API_H
#define MJSCOPE_CHAIN_API_H

#include <Python.h>

#define CHAIN_API_VERSION 2
typedef struct {
  int version;
  int (*target)(const double *, const double *, const double *, const double *, const double *,
                const double *, const double *, const double *, double *, double *, double *);
  long (*joint)(const double *, Py_ssize_t, const double *, const double *, const double *,
                double *, double *);
  void (*errors)(const double *, const double *, double *);
  int maxj;
  PyObject *(*to_list)(const double *, Py_ssize_t); /* a new list of Python floats */
} ChainApi;

#endif
