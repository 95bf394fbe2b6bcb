/* ordo harness API, version 1: ordo's checks called from any language (libordo_harness.so).
 *
 * The same engine as the ordo program, behind a plain C boundary: the contracts and their emulator, the
 * exact oracle and the contracts' error bounds, the check of one output, and the property suite that
 * `ordo verify --plugin` runs, here against callbacks instead of a library. The Python package
 * (python/ordo, docs/python.md) is a ctypes binding of this header; any language with a C FFI can use it.
 *
 * Conventions:
 * - Plain C: opaque handles, fixed-width integers, the tensor and argument structs of ordo/subject.h. No
 *   C++ type and no exception crosses the boundary.
 * - Every function that can fail returns ORDO_HARNESS_OK (0) or an ORDO_HARNESS_E_* code; the message of
 *   the last failure on the calling thread is ordo_harness_last_error() (valid until that thread's next
 *   call). A failed call writes no output.
 * - Tensors are dense, row-major, in host memory; operands are f32 values or bf16 bit patterns (uint16),
 *   keys int64 [T, 2|3]. `stream` fields must be NULL.
 * - Strings returned by a handle's accessors live as long as the handle.
 * - Calls on different handles may run on different threads; one handle is not to be shared between
 *   threads while it is used.
 */
#ifndef ORDO_HARNESS_H
#define ORDO_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "ordo/subject.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ORDO_HARNESS_ABI_VERSION 1u

/* Return codes. */
enum {
  ORDO_HARNESS_OK = 0,
  ORDO_HARNESS_E_ARGUMENT = 1,  /* a null pointer, a bad dtype or size, shapes that disagree, a stream */
  ORDO_HARNESS_E_CONTRACT = 2,  /* an unknown contract id, a malformed contract file or text */
  ORDO_HARNESS_E_REFUSED = 3,   /* the contract refuses the problem (duplicate keys, a padding row's nonzero
                                   gradient, keys under a call-order contract, ...): the message says which */
  ORDO_HARNESS_E_SUBJECT = 4,   /* the subject's description is invalid (verify) */
  ORDO_HARNESS_E_UNWRITABLE = 5,/* the report folder cannot be written */
  ORDO_HARNESS_E_INTERNAL = 9   /* anything else: a defect of ordo */
};

uint32_t ordo_harness_abi_version(void);
/* "ordo 0.1.0 (commit abc1234)" */
const char* ordo_harness_version(void);
const char* ordo_harness_last_error(void);
/* After E_REFUSED: the refusal as an ORDO_STATUS_* code of ordo/subject.h (e.g. ORDO_STATUS_DUPLICATE_KEY),
 * which a subject under verification returns for the same refusal; 0 after any other outcome. */
int32_t ordo_harness_last_refusal(void);

/* ---- Contracts ---------------------------------------------------------------------------------- */

typedef struct ordo_harness_contract ordo_harness_contract;

size_t ordo_harness_builtin_count(void);
/* The index-th built-in contract (forward ones first). */
int ordo_harness_contract_builtin(size_t index, ordo_harness_contract** out);
/* A built-in id ("fwd.f32.fma-chain/1"), the path of an ordo.contract/1 file, or its JSON text (starting
 * with '{'), parsed strictly: every defect is E_CONTRACT naming the field. */
int ordo_harness_contract_load(const char* id_path_or_json, ordo_harness_contract** out);
void ordo_harness_contract_free(ordo_harness_contract* contract);
const char* ordo_harness_contract_id(const ordo_harness_contract* contract);
const char* ordo_harness_contract_summary(const ordo_harness_contract* contract);
/* The ordo.contract/1 JSON text (docs/contract-format.md). */
const char* ordo_harness_contract_json(const ordo_harness_contract* contract);
/* ORDO_OP_FORWARD, ORDO_OP_BACKWARD_DATA or ORDO_OP_BACKWARD_WEIGHT. */
int32_t ordo_harness_contract_op(const ordo_harness_contract* contract);
/* ORDO_DTYPE_F32 or ORDO_DTYPE_BF16. */
int32_t ordo_harness_contract_operand_dtype(const ordo_harness_contract* contract);
/* Bits (1u << ORDO_DTYPE_F32) and/or (1u << ORDO_DTYPE_BF16). */
uint32_t ordo_harness_contract_output_dtypes(const ordo_harness_contract* contract);

/* ---- The emulator of a contract -------------------------------------------------------------------- */

/* Y = the contract's output for (X, W, b): args->y is written ([M, N], f32 or bf16 where the contract
 * allows it). The contract must be a forward one; operands of its operand dtype. */
int ordo_harness_emulate_forward(const ordo_harness_contract* contract, const ordo_forward_args* args);
/* dX = G W under a backward_data contract (args->dx f32 [M, K]). */
int ordo_harness_emulate_backward_data(const ordo_harness_contract* contract, const ordo_backward_data_args* args);
/* dW (and db when args->db.data is set) under a backward_weight contract, tokens in the contract's row order
 * (keys required for a logical-key order, refused for a call-order one). accumulate must be 0. */
int ordo_harness_emulate_backward_weight(const ordo_harness_contract* contract, const ordo_backward_weight_args* args);

/* ---- The exact result and the bound ---------------------------------------------------------------- */

/* The exact Y = X W^T + b, rounded once (round to nearest even) to args->y's dtype; `exact_f64` ([M, N],
 * or NULL) receives it rounded once to binary64. With a contract (else NULL), `bound` ([M, N], or NULL)
 * receives the contract's a-priori error bound of each element of its result (evaluated with upward
 * rounding; NaN where an input is NaN or Inf: no bound applies). Operands f32, or bf16 bit patterns. */
int ordo_harness_exact_forward(const ordo_harness_contract* contract, const ordo_forward_args* args,
                               double* exact_f64, double* bound);

/* ---- Checking one output --------------------------------------------------------------------------- */

enum {
  ORDO_HARNESS_VERDICT_PASS = 0,
  ORDO_HARNESS_VERDICT_MISMATCH = 1,        /* some element's bits differ from the contract's */
  ORDO_HARNESS_VERDICT_BOUND_VIOLATION = 2  /* bits equal, yet an element lies outside the bound: the
                                               contract's emulator or bound is wrong (never the subject) */
};

typedef struct ordo_harness_mismatch {
  int64_t row, col;
  uint32_t got_bits, want_bits; /* f32 bits, or bf16 bits in the low 16 */
  double exact;                 /* the exact value rounded to binary64 (NaN: no exact value) */
  double error_over_bound;      /* |got - exact| / bound (NaN: not judged) */
} ordo_harness_mismatch;

typedef struct ordo_harness_check_summary {
  uint32_t struct_size;         /* sizeof(ordo_harness_check_summary), set by the caller */
  int32_t verdict;              /* ORDO_HARNESS_VERDICT_* */
  int64_t elements;             /* every element was compared bit for bit */
  int64_t mismatches;           /* all of them; the first `capacity` are listed */
  int64_t judged;               /* elements judged against the exact result and the bound */
  int64_t outside_bound;        /* of those: error > bound */
  int64_t nonfinite_inputs;     /* elements with a NaN or Inf among their inputs (bitwise only) */
  double max_error_over_bound;  /* over the judged elements of the candidate */
} ordo_harness_check_summary;

/* Compares args->y (read, not written: the candidate) with the contract's output, every element bit for bit
 * (NaN bits as the contract states them), and judges the candidate's elements against the exact result
 * and the bound: all of them when bound_elements < 0, else every mismatching one and up to bound_elements
 * others (a deterministic sample; MPFR costs about 100 ns a term). */
int ordo_harness_check_forward(const ordo_harness_contract* contract, const ordo_forward_args* args,
                               int64_t bound_elements, ordo_harness_check_summary* summary,
                               ordo_harness_mismatch* mismatches, int64_t capacity);

/* ---- Generated cases ------------------------------------------------------------------------------ */

/* The value families of ordo's generators (properties/value_families.h), by index. */
size_t ordo_harness_family_count(void);
const char* ordo_harness_family_name(size_t index);
/* The operands of one generated case, as `ordo verify` draws them: X [M, K], W [N, K] and, when `bias` is
 * set, b [N], all f32 (rounded to bf16 values when bf16_operands). Deterministic in every argument. */
int ordo_harness_generate_forward(const char* family, int64_t M, int64_t N, int64_t K, int32_t with_bias,
                                  int32_t bf16_operands, uint64_t seed, float* x, float* w, float* bias);

/* ---- The property suite against callbacks ------------------------------------------------------------ */

/* A callback returns ORDO_OK, an ORDO_STATUS_* code (a refusal, judged as a plugin's), or this: the caller
 * failed (in Python: the callable raised, or returned the wrong shape or dtype); the run stops after the case
 * in progress and ordo_harness_result_aborted says so. */
#define ORDO_HARNESS_CALLBACK_ABORT 1000

typedef int (*ordo_harness_forward_fn)(void* user, const ordo_forward_args* args, char* message, size_t message_size);
typedef int (*ordo_harness_backward_data_fn)(void* user, const ordo_backward_data_args* args, char* message,
                                             size_t message_size);
typedef int (*ordo_harness_backward_weight_fn)(void* user, const ordo_backward_weight_args* args, char* message,
                                               size_t message_size);

/* One subject: a description as a plugin's (ordo/subject.h, validated the same way) and the callback of
 * each operation it declares. */
typedef struct ordo_harness_subject {
  uint32_t struct_size;              /* sizeof(ordo_harness_subject) */
  ordo_subject_info info;            /* name, version, buffers (ORDO_BUFFERS_HOST here), operations */
  void* user;                        /* passed to every callback */
  ordo_harness_forward_fn forward;
  ordo_harness_backward_data_fn backward_data;
  ordo_harness_backward_weight_fn backward_weight;
} ordo_harness_subject;

typedef struct ordo_harness_verify_options {
  uint32_t struct_size;       /* sizeof(ordo_harness_verify_options) */
  int32_t level;              /* 1 or 2, as `ordo verify --level` */
  uint64_t seed;
  int64_t cases;              /* cases per property; < 0: the level's */
  int64_t only_case;          /* >= 0: run just this case of each selected property (reproduce) */
  const char* property;       /* NULL: every property; else only this one */
  int32_t contract_properties;/* 1: also the contract's host properties (emulator against its scalar
                                 reference, bound, invariances), as `ordo verify --plugin` runs them */
  const char* report_dir;     /* NULL: no files; else report.json (ordo.report/1) and report.md there */
  const char* command;        /* recorded as the report's command */
  /* The reproduce line of a failure, with {property}, {kernel}, {seed} and {case} replaced (NULL: a
   * command-line form). */
  const char* reproduce_format;
} ordo_harness_verify_options;

typedef struct ordo_harness_result ordo_harness_result;

/* Runs the suite. Returns E_SUBJECT for an invalid description, E_UNWRITABLE when report_dir cannot be
 * written (checked before any work); a failing property is not an error: read the result. */
int ordo_harness_verify(const ordo_harness_subject* subject, const ordo_harness_verify_options* options,
                        ordo_harness_result** out);
void ordo_harness_result_free(ordo_harness_result* result);
/* The report, ordo.report/1 JSON (`ordo report` renders it). */
const char* ordo_harness_result_json(const ordo_harness_result* result);
/* "pass", "pass_with_inconclusive", "fail", "inconclusive" or "interrupted". */
const char* ordo_harness_result_verdict(const ordo_harness_result* result);
/* 1 when a callback returned ORDO_HARNESS_CALLBACK_ABORT. */
int32_t ordo_harness_result_aborted(const ordo_harness_result* result);

#ifdef __cplusplus
}
#endif

#endif /* ORDO_HARNESS_H */
