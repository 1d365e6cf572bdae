/*
 * The argument checks every Node-API addon of the compute service shares (compute/geometry/native,
 * compute/solvers/bundle-adjustment/native, compute/stages/keypoints/native): a thrown TypeError,
 * and a typed array's data and length read only when it is of the expected type.
 */
#ifndef NAPI_ARGS_H
#define NAPI_ARGS_H

#include <node_api.h>

/* Throws a TypeError with `message`; returns NULL, the value a failing call gives back. */
static napi_value throwError(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

/* The typed array `value` of `type`: its data and length; 0 when it is not one. */
static int typedArg(napi_env env, napi_value value, napi_typedarray_type type, void **data, size_t *length) {
  bool isTyped = false;
  if (napi_is_typedarray(env, value, &isTyped) != napi_ok || !isTyped) return 0;
  napi_typedarray_type actual;
  if (napi_get_typedarray_info(env, value, &actual, length, data, NULL, NULL) != napi_ok || actual != type) return 0;
  return 1;
}

#endif
