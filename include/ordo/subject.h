/* ordo subject ABI, version 1: the one header a kernel library needs to be checked by ordo.
 *
 * A subject is a shared library that describes itself and runs GEMMs on buffers ordo allocates:
 *   ordo verify --plugin libyours.so
 * runs every property that applies to each operation it declares (bitwise equality with the emulator of
 * its contract, batch invariance, column shards, the error bound against the exact result, microbatches,
 * and its fail-closed rows when it promises them). Plain C, no CUDA types: a CUDA library passes its
 * stream as void*.
 *
 * Tensors are dense and row-major (C order). Operands are f32 values or bf16 bit patterns (uint16);
 * keys are int64. The library must not keep pointers past a call, must not write its inputs, and must
 * write every element of its outputs and nothing outside them: ordo poisons each output, surrounds it
 * with guard bytes and checks both after every call.
 *
 * Each entry point returns ORDO_OK (0) or one of the ORDO_STATUS_* codes below with a message in
 * `message` (a NUL-terminated string of at most message_size bytes, which ordo provides). A library that
 * declares ORDO_SUBJECT_FAIL_CLOSED promises to refuse every malformed call with its specific code
 * and to leave the outputs untouched then; ordo checks that promise with malformed calls.
 *
 * Threads: `ordo fuzz --devices 0,1` or `--workers-per-device N` (N > 1) calls the entry points from
 * several threads at once, each thread with its own buffers (and its own current CUDA device); a library
 * that keeps shared state must guard it. `ordo verify` calls from one thread.
 *
 * Processes: ordo loads the library in worker processes of its own (docs/subject-isolation.md), one per
 * caller at a time, and starts a fresh one after a process ended, so state kept across calls lives in one
 * process only. A library that exits, aborts, crashes or hangs (beyond --subject-timeout) in a call fails
 * that case as a subject_fault (or subject_timeout); `--in-process` loads it into ordo itself, for gdb.
 */
#ifndef ORDO_SUBJECT_H
#define ORDO_SUBJECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORDO_SUBJECT_ABI_VERSION 1u

/* Element types. */
enum {
  ORDO_DTYPE_F32 = 1,  /* IEEE binary32 */
  ORDO_DTYPE_BF16 = 2, /* bfloat16 bit patterns (uint16) */
  ORDO_DTYPE_F16 = 3,  /* only ever passed in malformed calls */
  ORDO_DTYPE_F64 = 4,  /* only ever passed in malformed calls */
  ORDO_DTYPE_I64 = 5   /* logical keys */
};

/* Operations a subject can declare. */
enum {
  ORDO_OP_FORWARD = 1,         /* Y[M,N] = X[M,K] W[N,K]^T (+ b[N]) */
  ORDO_OP_BACKWARD_DATA = 2,   /* dX[M,K] = G[M,N] W[N,K] */
  ORDO_OP_BACKWARD_WEIGHT = 3  /* dW[N,K] = G[T,N]^T X[T,K], db[N] = sum_t G[t,N], tokens by logical key */
};

/* Where the buffers live. */
enum {
  ORDO_BUFFERS_DEVICE = 0, /* CUDA device memory of the current device; `stream` is a cudaStream_t */
  ORDO_BUFFERS_HOST = 1    /* ordinary host memory; `stream` is NULL */
};

/* Operation flags. */
enum {
  ORDO_SUBJECT_FAIL_CLOSED = 1u, /* malformed calls are refused with their code, outputs untouched */
  ORDO_SUBJECT_ACCUMULATE = 2u   /* backward_weight: honours `accumulate` (chains continue from dW, db) */
};

/* Status codes (the same meanings as ordo's own kernels use). */
enum {
  ORDO_OK = 0,
  ORDO_STATUS_UNSUPPORTED_DEVICE = 2,
  ORDO_STATUS_WRONG_DTYPE = 4,
  ORDO_STATUS_BAD_SIZE = 5,          /* a size < 1 (T < 0), or too large */
  ORDO_STATUS_INCONSISTENT_SIZE = 6, /* shapes disagree */
  ORDO_STATUS_NULL_POINTER = 7,
  ORDO_STATUS_HOST_POINTER = 8,      /* device subject given host memory */
  ORDO_STATUS_WRONG_DEVICE = 9,
  ORDO_STATUS_UNSUPPORTED_SHAPE = 10, /* e.g. K not a multiple of k_multiple */
  ORDO_STATUS_MISALIGNED = 11,
  ORDO_STATUS_ALIASING = 12,          /* an output overlaps an input */
  ORDO_STATUS_BAD_KEYS = 13,
  ORDO_STATUS_DUPLICATE_KEY = 14,
  ORDO_STATUS_PADDING_GRADIENT_NONZERO = 15,
  ORDO_STATUS_LAUNCH_FAILED = 19,
  ORDO_STATUS_OTHER = 20
};

typedef struct ordo_tensor {
  const void* data; /* NULL: absent (an optional operand) */
  int32_t dtype;    /* ORDO_DTYPE_* */
  int64_t rows;
  int64_t cols;
} ordo_tensor;

typedef struct ordo_output {
  void* data;
  int32_t dtype;
  int64_t rows;
  int64_t cols;
} ordo_output;

typedef struct ordo_forward_args {
  uint32_t struct_size; /* sizeof(ordo_forward_args) */
  ordo_tensor x;        /* [M, K] */
  ordo_tensor w;        /* [N, K] */
  ordo_tensor bias;     /* [1, N] f32, or data == NULL */
  ordo_output y;        /* [M, N] f32, or bf16 where the operation allows it */
  void* stream;
} ordo_forward_args;

typedef struct ordo_backward_data_args {
  uint32_t struct_size;
  ordo_tensor g;   /* [M, N] */
  ordo_tensor w;   /* [N, K] */
  ordo_output dx;  /* [M, K] f32 */
  void* stream;
} ordo_backward_data_args;

typedef struct ordo_backward_weight_args {
  uint32_t struct_size;
  ordo_tensor x;     /* [T, K] (T may be 0) */
  ordo_tensor g;     /* [T, N] */
  ordo_tensor keys;  /* [T, 2|3] int64, or data == NULL: call order */
  ordo_output dw;    /* [N, K] f32 */
  ordo_output db;    /* [1, N] f32, or data == NULL */
  int32_t accumulate; /* 1: continue every chain from the current dW (and db) */
  void* stream;
} ordo_backward_weight_args;

typedef struct ordo_operation_info {
  int32_t op;               /* ORDO_OP_* */
  const char* contract;     /* a built-in contract id ("fwd.f32.fma-chain/1") or an ordo.contract/1 JSON text */
  int32_t operand_dtype;    /* ORDO_DTYPE_F32 or ORDO_DTYPE_BF16 */
  uint32_t output_dtypes;   /* bit (1u << ORDO_DTYPE_F32) and/or (1u << ORDO_DTYPE_BF16); forward only */
  int32_t k_multiple;       /* forward: the reduced dimension must be a multiple of this (1: any);
                               backward: every operand row length (dX's N and K, dW's N and K) */
  int32_t alignment;        /* bytes every operand pointer needs (0: its element size) */
  int32_t min_sm, max_sm;   /* device subjects: the SM range (e.g. 90, 90); 0: no limit */
  uint32_t flags;           /* ORDO_SUBJECT_* */
} ordo_operation_info;

typedef struct ordo_subject_info {
  uint32_t abi_version; /* ORDO_SUBJECT_ABI_VERSION */
  uint32_t struct_size; /* sizeof(ordo_subject_info) */
  const char* name;     /* e.g. "my-gemm" */
  const char* version;  /* free text, recorded in reports */
  int32_t buffers;      /* ORDO_BUFFERS_* */
  uint32_t operation_count;                /* 1..8 */
  const ordo_operation_info* operations;   /* static storage: read after describe returns */
} ordo_subject_info;

/* The entry points a subject exports (with C linkage). describe is required; the run functions are
 * required for the operations declared. Each run function may return before the work finishes on the
 * stream (device subjects); ordo synchronises the stream before it reads an output. */
typedef int (*ordo_subject_describe_fn)(ordo_subject_info* info);
typedef int (*ordo_subject_forward_fn)(const ordo_forward_args* args, char* message, size_t message_size);
typedef int (*ordo_subject_backward_data_fn)(const ordo_backward_data_args* args, char* message, size_t message_size);
typedef int (*ordo_subject_backward_weight_fn)(const ordo_backward_weight_args* args, char* message,
                                               size_t message_size);

int ordo_subject_describe(ordo_subject_info* info);
int ordo_subject_forward(const ordo_forward_args* args, char* message, size_t message_size);
int ordo_subject_backward_data(const ordo_backward_data_args* args, char* message, size_t message_size);
int ordo_subject_backward_weight(const ordo_backward_weight_args* args, char* message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif /* ORDO_SUBJECT_H */
