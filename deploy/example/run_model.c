/* Runs a tunefarm model artifact through the C API (deploy/tunefarm_runtime.h):
 *
 *   tunefarm_run_model_example [--threads N] [--save PREFIX] model.so [input0.bin input1.bin ...]
 *
 * Input i is read from the i-th .bin file (raw little-endian, exactly the input's size) or,
 * when fewer files are given, filled with zeros. Prints each output's name, dtype, shape and
 * first values; with --save, also writes output i raw to PREFIX<i>.bin. Exit status 0 on
 * success, 1 on any error (with the message on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/tunefarm_runtime.h"

enum { kShownValues = 8 };

static int ReadFile(const char* path, void* data, size_t bytes) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return 0;
  }
  size_t got = fread(data, 1, bytes, file);
  int extra = fgetc(file) != EOF;
  fclose(file);
  if (got != bytes || extra) {
    fprintf(stderr, "%s: expected exactly %zu bytes\n", path, bytes);
    return 0;
  }
  return 1;
}

static void PrintValue(const char* dtype, const unsigned char* data, size_t i) {
  if (strcmp(dtype, "float32") == 0) {
    float v;
    memcpy(&v, data + i * sizeof v, sizeof v);
    printf(" %g", v);
  } else if (strcmp(dtype, "float64") == 0) {
    double v;
    memcpy(&v, data + i * sizeof v, sizeof v);
    printf(" %g", v);
  } else if (strcmp(dtype, "int64") == 0) {
    long long v;
    memcpy(&v, data + i * sizeof v, sizeof v);
    printf(" %lld", v);
  } else if (strcmp(dtype, "int32") == 0) {
    int v;
    memcpy(&v, data + i * sizeof v, sizeof v);
    printf(" %d", v);
  } else {
    printf(" 0x%02x", data[i]);
  }
}

/* Element size of the dtypes PrintValue decodes; others print as bytes. */
static size_t ElementBytes(const char* dtype) {
  if (strcmp(dtype, "float32") == 0 || strcmp(dtype, "int32") == 0) return 4;
  if (strcmp(dtype, "float64") == 0 || strcmp(dtype, "int64") == 0) return 8;
  return 1;
}

static int SetInputs(tunefarm_model* model, char** files, int num_files) {
  for (int i = 0; i < tunefarm_model_num_inputs(model); ++i) {
    tunefarm_tensor_info info;
    if (tunefarm_model_input_info(model, i, &info) != TUNEFARM_RT_OK) return 0;
    void* data = calloc(info.bytes > 0 ? info.bytes : 1, 1);
    if (data == NULL) return 0;
    int ok = i >= num_files || ReadFile(files[i], data, info.bytes);
    if (ok && tunefarm_model_set_input(model, i, data, info.bytes) != TUNEFARM_RT_OK) {
      fprintf(stderr, "set_input %s: %s\n", info.name, tunefarm_last_error());
      ok = 0;
    }
    free(data);
    if (!ok) return 0;
  }
  return 1;
}

static int WriteFile(const char* prefix, int index, const void* data, size_t bytes) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s%d.bin", prefix, index) >= (int)sizeof path) return 0;
  FILE* file = fopen(path, "wb");
  if (file == NULL) {
    fprintf(stderr, "cannot write %s\n", path);
    return 0;
  }
  int ok = fwrite(data, 1, bytes, file) == bytes;
  ok = fclose(file) == 0 && ok;
  if (!ok) fprintf(stderr, "cannot write %s\n", path);
  return ok;
}

static int PrintOutputs(const tunefarm_model* model, const char* save_prefix) {
  for (int i = 0; i < tunefarm_model_num_outputs(model); ++i) {
    tunefarm_tensor_info info;
    if (tunefarm_model_output_info(model, i, &info) != TUNEFARM_RT_OK) return 0;
    unsigned char* data = malloc(info.bytes > 0 ? info.bytes : 1);
    if (data == NULL) return 0;
    if (tunefarm_model_get_output(model, i, data, info.bytes) != TUNEFARM_RT_OK) {
      fprintf(stderr, "get_output %s: %s\n", info.name, tunefarm_last_error());
      free(data);
      return 0;
    }
    printf("%s %s [", info.name, info.dtype);
    for (int d = 0; d < info.ndim; ++d) printf(d ? ", %lld" : "%lld", (long long)info.shape[d]);
    printf("]:");
    size_t count = info.bytes / ElementBytes(info.dtype);
    for (size_t k = 0; k < count && k < kShownValues; ++k) PrintValue(info.dtype, data, k);
    printf("%s\n", count > kShownValues ? " ..." : "");
    if (save_prefix != NULL && !WriteFile(save_prefix, i, data, info.bytes)) {
      free(data);
      return 0;
    }
    free(data);
  }
  return 1;
}

int main(int argc, char** argv) {
  int threads = 0, first = 1;
  const char* save_prefix = NULL;
  while (first + 1 < argc && (strcmp(argv[first], "--threads") == 0 || strcmp(argv[first], "--save") == 0)) {
    if (strcmp(argv[first], "--threads") == 0) threads = atoi(argv[first + 1]);
    else save_prefix = argv[first + 1];
    first += 2;
  }
  if (first >= argc) {
    fprintf(stderr, "usage: %s [--threads N] [--save PREFIX] model.so [input.bin ...]\n", argv[0]);
    return 1;
  }
  tunefarm_model* model = NULL;
  if (tunefarm_model_load(argv[first], threads, &model) != TUNEFARM_RT_OK) {
    fprintf(stderr, "%s\n", tunefarm_last_error());
    return 1;
  }
  int ok = SetInputs(model, argv + first + 1, argc - first - 1);
  if (ok && tunefarm_model_run(model) != TUNEFARM_RT_OK) {
    fprintf(stderr, "run: %s\n", tunefarm_last_error());
    ok = 0;
  }
  ok = ok && PrintOutputs(model, save_prefix);
  tunefarm_model_free(model);
  return ok ? 0 : 1;
}
