/* Vendor datasheet peaks, dense (without 2:4 sparsity), per device as
 * PyTorch sees it (one GCD of an MI250 / MI250X).  FP64 and FP32 are the
 * matrix / tensor-core figures where the device has them; FP32 is what an
 * fp32 matmul without TF32 gets (PyTorch's default on NVIDIA since 1.12). */
#include "model/peaks.h"
#include <string.h>
#include <strings.h>

/*                     fp64   fp32   tf32    fp16    bf16    fp8                 */
#define P(a, b, c, d, e, f) {0, a, b, c, d, e, f}
enum {
  R_GH200, R_H200, R_H100_NVL, R_H100_PCIE, R_H100_SXM, R_B200, R_A100_80_PCIE, R_A100_40, R_A100_80,
  R_V100S, R_V100_PCIE, R_V100_SXM, R_MI325X, R_MI300X, R_MI300A, R_MI250X, R_MI250, R__N
};
static const peak_row ROWS[R__N] = {
    [R_GH200] = {"GH200 (H100)", P(66.9, 66.9, 494.7, 989.4, 989.4, 1978.9), 4.0},
    [R_H200] = {"H200", P(66.9, 66.9, 494.7, 989.4, 989.4, 1978.9), 4.8},
    [R_H100_NVL] = {"H100 NVL", P(60.0, 60.0, 417.5, 835.5, 835.5, 1670.5), 3.9},
    [R_H100_PCIE] = {"H100 PCIe", P(51.2, 51.2, 378.0, 756.0, 756.0, 1513.0), 2.0},
    [R_H100_SXM] = {"H100 SXM", P(66.9, 66.9, 494.7, 989.4, 989.4, 1978.9), 3.35},
    [R_B200] = {"B200", P(37.0, 75.0, 1125.0, 2250.0, 2250.0, 4500.0), 8.0},
    [R_A100_80_PCIE] = {"A100 80GB PCIe", P(19.5, 19.5, 156.0, 312.0, 312.0, 0), 1.935},
    [R_A100_40] = {"A100 40GB", P(19.5, 19.5, 156.0, 312.0, 312.0, 0), 1.555},
    [R_A100_80] = {"A100 80GB SXM", P(19.5, 19.5, 156.0, 312.0, 312.0, 0), 2.039},
    [R_V100S] = {"V100S PCIe", P(8.2, 16.4, 0, 130.0, 0, 0), 1.134},
    [R_V100_PCIE] = {"V100 PCIe", P(7.0, 14.0, 0, 112.0, 0, 0), 0.9},
    [R_V100_SXM] = {"V100 SXM2", P(7.8, 15.7, 0, 125.0, 0, 0), 0.9},
    [R_MI325X] = {"MI325X", P(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9), 6.0},
    [R_MI300X] = {"MI300X", P(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9), 5.3},
    [R_MI300A] = {"MI300A", P(122.6, 122.6, 490.3, 980.6, 980.6, 1961.2), 5.3},
    [R_MI250X] = {"MI250X (one GCD)", P(47.9, 47.9, 0, 191.5, 191.5, 0), 1.6},
    [R_MI250] = {"MI250 / MI210 (one GCD)", P(45.3, 45.3, 0, 181.0, 181.0, 0), 1.6},
};

static int has(const char *name, const char *p) {
  size_t n = strlen(name), m = strlen(p);
  for (size_t i = 0; i + m <= n; i++)
    if (strncasecmp(name + i, p, m) == 0) return 1;
  return 0;
}

static int cc_is(const fsdpa_device_info *d, int major, int minor) {
  return d->compute_major == major && d->compute_minor == minor;
}

const peak_row *peak_lookup(const fsdpa_device_info *d) {
  if (!d) return NULL;
  const char *n = d->name;
  int amd = has(n, "AMD") || has(n, "Instinct") || has(n, "Radeon");
  if (has(n, "GH200")) return &ROWS[R_GH200];
  if (has(n, "H200")) return &ROWS[R_H200];
  if (has(n, "H100") || has(n, "H800")) {
    if (has(n, "NVL")) return &ROWS[R_H100_NVL];
    if (has(n, "PCIe") || d->sms == 114) return &ROWS[R_H100_PCIE];
    return &ROWS[R_H100_SXM];
  }
  if (has(n, "B200")) return &ROWS[R_B200];
  if (has(n, "A100") || has(n, "A800")) {
    if (has(n, "40GB")) return &ROWS[R_A100_40];
    if (has(n, "PCIe")) return &ROWS[R_A100_80_PCIE];
    return &ROWS[R_A100_80];
  }
  if (has(n, "V100S")) return &ROWS[R_V100S];
  if (has(n, "V100")) return has(n, "PCIe") ? &ROWS[R_V100_PCIE] : &ROWS[R_V100_SXM];
  if (has(n, "MI325X")) return &ROWS[R_MI325X];
  if (has(n, "MI300X")) return &ROWS[R_MI300X];
  if (has(n, "MI300A")) return &ROWS[R_MI300A];
  if (has(n, "MI250X")) return &ROWS[R_MI250X];
  if (has(n, "MI250") || has(n, "MI210")) return &ROWS[R_MI250];
  /* ROCm reports some parts by a generic marketing name: tell them by
   * their gfx architecture (compute capability) and compute-unit count */
  if (amd && cc_is(d, 9, 4)) return d->sms == 304 ? &ROWS[R_MI300X] : d->sms == 228 ? &ROWS[R_MI300A] : NULL;
  if (amd && cc_is(d, 9, 0)) return d->sms == 110 ? &ROWS[R_MI250X] : d->sms == 104 ? &ROWS[R_MI250] : NULL;
  return NULL;
}

const peak_row *peak_rows(size_t *n) {
  *n = R__N;
  return ROWS;
}
