/* Which GPU kernels are communication, and by which rule: the one
 * classification every consumer reads (store_views.comm).
 *
 *   name        the kernel's name is a communication library's
 *               (classify.h NC_COMM, family comm_family_name());
 *   user        the name matches a user glob (comm.kernel_patterns);
 *   provenance  the kernel was launched (its runtime call, by correlation
 *               id) while a communication CPU op or annotation (NC_COMM_OP)
 *               was open on the launching thread, or it lies inside a
 *               communication gpu_user_annotation on its own stream; GEMM
 *               kernels (NC_GEMM) never are: fused comm+matmul ops launch
 *               them.
 *
 * The rules are tried in that order; the first that holds decides. */
#ifndef FSDPA_EVENTS_COMM_CLASS_H
#define FSDPA_EVENTS_COMM_CLASS_H
#include "events/store.h"

enum { COMM_BY_NAME = 1, COMM_BY_USER = 2, COMM_BY_PROVENANCE = 3 };
#define COMM_RULE_SHIFT 30
#define COMM_VALUE_MASK ((1u << COMM_RULE_SHIFT) - 1)
/* Code of a communication kernel: rule << 30 | value, where value is the name
 * family (enum comm_family), the user pattern's index, or the intern id of
 * the outermost communication op / annotation it was launched in. */
static inline uint32_t comm_code(int rule, uint32_t value) {
  return (uint32_t)rule << COMM_RULE_SHIFT | (value & COMM_VALUE_MASK);
}
static inline int comm_rule(uint32_t code) { return (int)(code >> COMM_RULE_SHIFT); }
static inline uint32_t comm_value(uint32_t code) { return code & COMM_VALUE_MASK; }
static inline const char *comm_rule_name(int rule) {
  return rule == COMM_BY_NAME ? "name" : rule == COMM_BY_USER ? "user" : rule == COMM_BY_PROVENANCE ? "provenance" : "";
}
/* Is st.gpu record i communication?  (views built) */
static inline int store_gpu_is_comm(const store_views *v, uint32_t i) { return v->comm[i] != 0; }
/* The i-th user pattern (0-based), NULL past the last. */
const char *store_comm_pattern(const store *s, size_t i);
/* The family a communication code names (the report's comm_families
 * "family"): the name family, the user pattern, or the communication op's
 * name; "" if unknown.  *len receives its length. */
const char *comm_code_family(const store *s, uint32_t code, size_t *len);

/* Fill v->comm for every st.gpu record (v's correlation map built).
 * O(n log n).  0, or -1 on allocation failure. */
int comm_classify(fa_alloc *a, const store *s, store_views *v);
#endif
