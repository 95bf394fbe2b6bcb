#include <stdio.h>
#include <string.h>
/* The harness API from plain C99: a contract, a callback subject (here the contract's own emulator), the
 * suite, the report. python/tests/test_c_api.py compiles and runs it. */
#include "ordo/harness.h"
static int fwd(void* user, const ordo_forward_args* a, char* msg, size_t n) {
  (void)msg; (void)n;
  return ordo_harness_emulate_forward((const ordo_harness_contract*)user, a) == ORDO_HARNESS_OK ? ORDO_OK : ORDO_STATUS_OTHER;
}
int main(void) {
  ordo_harness_contract* c = NULL;
  if (ordo_harness_contract_load("fwd.f32.fma-chain/1", &c)) { printf("%s\n", ordo_harness_last_error()); return 1; }
  if (ordo_harness_contract_load("nope/1", &c) == ORDO_HARNESS_E_CONTRACT) printf("expected: %s\n", ordo_harness_last_error());
  ordo_operation_info op = {ORDO_OP_FORWARD, "fwd.f32.fma-chain/1", ORDO_DTYPE_F32, 1u << ORDO_DTYPE_F32, 1, 0, 0, 0, 0};
  ordo_harness_subject s; memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  s.info.abi_version = ORDO_SUBJECT_ABI_VERSION; s.info.struct_size = sizeof s.info; s.info.name = "c-test"; s.info.version = "1";
  s.info.buffers = ORDO_BUFFERS_HOST; s.info.operation_count = 1; s.info.operations = &op;
  s.user = c; s.forward = fwd;
  ordo_harness_verify_options o; memset(&o, 0, sizeof o);
  o.struct_size = sizeof o; o.level = 1; o.seed = 7; o.cases = 20; o.only_case = -1;
  ordo_harness_result* r = NULL;
  if (ordo_harness_verify(&s, &o, &r)) { printf("%s\n", ordo_harness_last_error()); return 1; }
  printf("verdict %s aborted %d json %zu bytes\n", ordo_harness_result_verdict(r), ordo_harness_result_aborted(r), strlen(ordo_harness_result_json(r)));
  ordo_harness_result_free(r);
  ordo_harness_contract_free(c);
  return 0;
}
