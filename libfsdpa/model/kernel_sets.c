/* The communication / compute kernel sets of a window and the typing of
 * collectives, which the overlap analysis, its queries, the FSDP unit model
 * and the HTML report all read with one definition.  Definitions are in
 * fsdpa.h, group overlap. */
#include "model/kernel_sets.h"
#include "events/classify.h"
#include "events/comm_class.h"
#include <stdlib.h>
#include <string.h>


/* The store gives every NCCL-named kernel a coll_info, empty when the
 * kernel carried no collective args. */
static int ci_empty(const coll_info *x) {
  return x->coll_name == INTERN_NONE && x->dtype == INTERN_NONE && x->pg_name == INTERN_NONE &&
         x->in_nelems == FSDPA_ABSENT && x->out_nelems == FSDPA_ABSENT;
}

int ks_kernel_coll(const store *s, const ev_rec *r, const coll_info **ci) {
  int t = nc_coll(store_name_info(s, r->name));
  if (t == COLL_NONE) t = COLL_OTHER;
  *ci = NULL;
  if (r->aux != AUX_NONE && r->aux < s->colls.len &&
      !ci_empty(&FA_VEC_AT(&s->colls, coll_info, r->aux))) {
    const coll_info *x = &FA_VEC_AT(&s->colls, coll_info, r->aux);
    *ci = x;
    if (x->coll_name != INTERN_NONE) {
      int a = coll_type_from_arg(store_name(s, x->coll_name), intern_len(&s->names, x->coll_name));
      /* the argument is what the framework asked for; the kernel token only
       * says which specialised kernel NCCL picked ("Generic" for RCCL) */
      if (a != COLL_NONE && a != COLL_OTHER) t = a;
    }
  }
  return t;
}

double ks_bus_factor(int coll, int n) {
  if (n <= 0) return -1.0;
  double f = (double)(n - 1) / (double)n;
  switch (coll) {
    case COLL_ALLREDUCE: return 2.0 * f;
    case COLL_ALLGATHER:
    case COLL_REDUCESCATTER:
    case COLL_ALLTOALL: return f;
    case COLL_BROADCAST:
    case COLL_REDUCE:
    case COLL_SENDRECV:
    case COLL_SEND:
    case COLL_RECV: return 1.0;
    default: return -1.0;
  }
}

/* Algorithm bytes as nccl-tests count them: AllGather the gathered output,
 * every other collective its input. */
static void ent_bytes(const store *s, const coll_info *ci, int coll, ks_ent *e) {
  e->bytes = e->bus_bytes = FSDPA_ABSENT;
  if (!ci || ci->dtype == INTERN_NONE) return;
  int sz = dtype_size(store_name(s, ci->dtype), intern_len(&s->names, ci->dtype));
  int64_t nel = coll == COLL_ALLGATHER ? ci->out_nelems : ci->in_nelems;
  /* more than 1 PiB in one collective is not a real size (STORE_MAX_BYTES) */
  if (sz <= 0 || nel == FSDPA_ABSENT || nel < 0 || nel > STORE_MAX_BYTES / sz) return;
  e->bytes = nel * sz;
  double f = ks_bus_factor(coll, ci->group_size);
  if (f >= 0) e->bus_bytes = (int64_t)((double)e->bytes * f + 0.5);
}

/* Kernels without their own collective args (RCCL, older PyTorch) borrow
 * them from the record_param_comms op they were launched under: the kernel's
 * External id (or its runtime call's) is that op's. */
typedef struct pc_map {
  int64_t *ext;
  uint32_t *aux;
  size_t n;
} pc_map;

static int cmp_i64pair(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  return a[0] < b[0] ? -1 : a[0] > b[0];
}

static fsdpa_status pc_build(fa_alloc *a, const store *s, pc_map *m, int64_t **tmp, size_t *tmpn) {
  memset(m, 0, sizeof *m);
  size_t n = 0;
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    if (r->aux != AUX_NONE && r->ext != FSDPA_ABSENT) n++;
  }
  *tmpn = n;
  *tmp = NULL;
  if (!n) return FSDPA_OK;
  int64_t *p = fa_malloc(a, n * 2 * sizeof(int64_t));
  if (!p) return fa_fail_status(a);
  size_t k = 0;
  for (size_t i = 0; i < s->cpu.len; i++) {
    const ev_rec *r = STORE_REC(&s->cpu, i);
    if (r->aux == AUX_NONE || r->ext == FSDPA_ABSENT) continue;
    p[2 * k] = r->ext;
    p[2 * k + 1] = r->aux;
    k++;
  }
  qsort(p, n, 2 * sizeof(int64_t), cmp_i64pair);
  *tmp = p;
  m->n = n;
  return FSDPA_OK;
}

static uint32_t pc_find(const int64_t *p, size_t n, int64_t ext) {
  if (ext == FSDPA_ABSENT) return AUX_NONE;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (p[2 * mid] < ext) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && p[2 * lo] == ext ? (uint32_t)p[2 * lo + 1] : AUX_NONE;
}

void ks_free(ks_data *d) {
  if (!d->a) return;
  fa_free(d->a, d->comp, d->comp_cap * sizeof(iv));
  fa_free(d->a, d->comm, d->comm_cap * sizeof(iv));
  fa_free(d->a, d->ents, d->ents_cap * sizeof(ks_ent));
  memset(d, 0, sizeof *d);
}

fsdpa_status ks_gather(fsdpa_ctx *c, const store_views *v, const qwin *w, ks_data *d) {
  fa_alloc *a = &c->alloc;
  const store *s = &c->st;
  memset(d, 0, sizeof *d);
  d->a = a;
  size_t ncomp = 0, ncomm = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!qwin_selects(w, sv)) continue;
    ncomm += sv->comm_kernels;
    ncomp += sv->kernels - sv->comm_kernels;
  }
  int64_t *pcp = NULL;
  size_t pcn = 0;
  fsdpa_status st = FSDPA_OK;
  d->comp_cap = ncomp;
  d->comm_cap = ncomm;
  d->ents_cap = ncomm;
  if (ncomp && !(d->comp = fa_malloc(a, ncomp * sizeof(iv)))) goto oom;
  if (ncomm && !(d->comm = fa_malloc(a, ncomm * sizeof(iv)))) goto oom;
  if (ncomm && !(d->ents = fa_malloc(a, ncomm * sizeof(ks_ent)))) goto oom;
  int need_pc = 0;
  for (size_t i = 0; i < v->nstreams; i++) {
    const gpu_stream_view *sv = &v->streams[i];
    if (!qwin_selects(w, sv)) continue;
    for (size_t j = 0; j < sv->nops; j++) {
      const ev_rec *r = STORE_REC(&s->gpu, sv->ops[j]);
      if (r->kind != RK_KERNEL) continue;
      iv x = {r->ts, r->end};
      if (!iv_clip1(&x, w->t0, w->t1)) continue;
      if (!store_gpu_is_comm(v, sv->ops[j])) {
        d->comp[d->ncomp++] = x;
        d->comp_kernels++;
        continue;
      }
      const coll_info *ci;
      ks_ent e;
      e.s = x.s;
      e.e = x.e;
      e.dur = r->end - r->ts;
      e.gpu = sv->ops[j];
      e.coll = ks_kernel_coll(s, r, &ci);
      e.pg = ci ? ci->pg_name : INTERN_NONE;
      ent_bytes(s, ci, e.coll, &e);
      if (!ci) need_pc = 1;
      d->ents[d->nents++] = e;
    }
  }
  if (need_pc) {
    pc_map m;
    st = pc_build(a, s, &m, &pcp, &pcn);
    if (st) goto fail;
    for (size_t k = 0; k < d->nents && pcn; k++) {
      ks_ent *e = &d->ents[k];
      const ev_rec *r = STORE_REC(&s->gpu, e->gpu);
      const coll_info *own;
      ks_kernel_coll(s, r, &own);
      if (own) continue;
      uint32_t aux = pc_find(pcp, pcn, r->ext);
      if (aux == AUX_NONE) {
        uint32_t rt = store_runtime_for_corr(v, r->corr);
        if (rt != UINT32_MAX) aux = pc_find(pcp, pcn, STORE_REC(&s->rt, rt)->ext);
      }
      if (aux == AUX_NONE || aux >= s->colls.len) continue;
      const coll_info *ci = &FA_VEC_AT(&s->colls, coll_info, aux);
      if (ci->coll_name != INTERN_NONE) {
        int t = coll_type_from_arg(store_name(s, ci->coll_name), intern_len(&s->names, ci->coll_name));
        if (t != COLL_NONE && t != COLL_OTHER) e->coll = t;
      }
      e->pg = ci->pg_name;
      ent_bytes(s, ci, e->coll, e);
    }
  }
  for (size_t k = 0; k < d->nents; k++) d->comm[d->ncomm++] = (iv){d->ents[k].s, d->ents[k].e};
  d->ncomp = iv_union(d->comp, d->ncomp);
  d->ncomm = iv_union(d->comm, d->ncomm);
  fa_free(a, pcp, pcn * 2 * sizeof(int64_t));
  return FSDPA_OK;
oom:
  st = fa_fail_status(a);
fail:
  fa_free(a, pcp, pcn * 2 * sizeof(int64_t));
  ks_free(d);
  return st;
}

