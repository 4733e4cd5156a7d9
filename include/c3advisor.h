/*
 * c3advisor.h: the C API of c3advisor (libc3advisor.so), for frameworks and other
 * languages. C99; no C++ types; no exception crosses it. docs/capi.md is the reference
 * with examples; the Python package `c3advisor` is written over it.
 *
 * What it does: given a GEMM and a collective that a framework wants to run
 * concurrently on one GPU of a node (a "pair"), it predicts every way to run them
 * (strategies: serial, launch orders, SM partitions, copy engines) from a hardware
 * profile and recommends one, with the settings a framework applies (NCCL's CTA
 * budget, green-context SM counts, the launch order, the copy-engine implementation).
 *
 * Conventions (as NCCL's tuner plugin interface):
 *  - Versioned: C3ADVISOR_API_VERSION is the version of this header; c3a_version()
 *    returns the version of the library that was loaded. A program checks that they are
 *    equal before its first call: a struct of this header has the layout of its version
 *    only. Versions change only by adding a major number; fields are never reordered.
 *  - Every call that can fail returns a c3a_status; C3A_OK (0) is success. The message
 *    of the calling thread's last call is c3a_last_error(): "" after a success, one
 *    sentence naming the value, field, file or line after a failure.
 *  - Output structs are filled only on success (and, for C3A_ERR_BUFFER_TOO_SMALL, as
 *    that status says). Strings in structs are NUL-terminated and owned by the struct.
 *  - Thread safety: an advisor is immutable once created; every call on one advisor may
 *    run from any number of threads at once. c3a_advisor_destroy must not race with
 *    other calls on the same advisor.
 *  - Units: times in seconds, sizes in bytes.
 */
#ifndef C3ADVISOR_H
#define C3ADVISOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this header's API; c3a_version() gives the library's. */
#define C3ADVISOR_API_VERSION 4

/** Size of the fixed string fields of the structs below (including the NUL). */
#define C3A_NAME_SIZE 64

/** What a call returned. */
typedef enum c3a_status {
  C3A_OK = 0,
  /** A required pointer argument or field is NULL. */
  C3A_ERR_NULL_ARGUMENT = 1,
  /** A value is invalid: a zero or negative size, fewer than 2 ranks, an unknown dtype,
   *  collective kind or GEMM class. */
  C3A_ERR_INVALID_ARGUMENT = 2,
  /** The profile is neither an embedded profile name nor an existing file. */
  C3A_ERR_PROFILE_NOT_FOUND = 3,
  /** A profile or trace (file or text) is malformed; the message names file, line, key. */
  C3A_ERR_BAD_FILE = 4,
  /** The profile cannot answer this pair: more ranks than GPUs in its node, a dtype or
   *  collective it has no data for, or times that do not fit a double. */
  C3A_ERR_OUT_OF_DOMAIN = 5,
  /** Asked for something reserved for a later version (no call of this version returns
   *  it; the dependent pairs it once answered are advised). */
  C3A_ERR_NOT_IMPLEMENTED = 6,
  /** An output buffer is too small; `*needed` holds the size required (with the NUL). */
  C3A_ERR_BUFFER_TOO_SMALL = 7,
  /** Anything else (out of memory, a bug): the message says what. */
  C3A_ERR_INTERNAL = 8
} c3a_status;

/** How the two kernels are launched. */
typedef enum c3a_launch_order {
  C3A_ORDER_SERIAL = 0,           /**< one stream: the GEMM, then the collective */
  C3A_ORDER_GEMM_FIRST = 1,       /**< two streams, the GEMM launched first */
  C3A_ORDER_COLLECTIVE_FIRST = 2  /**< two streams, the collective launched first */
} c3a_launch_order;

/** Where the collective runs. */
typedef enum c3a_transport {
  C3A_TRANSPORT_NCCL = 0,        /**< the collective library's kernels on SMs (NCCL, RCCL) */
  C3A_TRANSPORT_COPY_ENGINE = 1  /**< the GPU's copy (DMA) engines; strategy keys "dma..." */
} c3a_transport;

/** The pair to advise: a GEMM C[m x n] = A[m x k] * B[k x n] and a collective run
 *  concurrently on each of `ranks` GPUs of one node. Sizes follow nccl-tests:
 *  all_gather: the gathered output per rank; all_to_all: the send buffer per rank;
 *  reduce_scatter: the input per rank; all_reduce: the buffer per rank. */
typedef struct c3a_pair {
  int64_t m, n, k;            /**< > 0 */
  const char* dtype;          /**< "bf16", "fp16", "fp32", "fp8"; NULL: "bf16" */
  const char* collective;     /**< "all_gather", "all_to_all", "reduce_scatter",
                                   "all_reduce"; required */
  int64_t size_bytes;         /**< > 0 and <= 2^62; a dependent pair may give 0: the size of the
                                   GEMM operand it moves (m k or m n elements) */
  int ranks;                  /**< >= 2 and at most the profile's GPUs; 0: the profile's
                                   gpu_count */
  const char* gemm_class;     /**< "compute_bound" or "memory_bound" where measured;
                                   NULL: from the roofline */
  const char* dependency;     /**< NULL or "none" (independent pair);
                                   "collective_feeds_gemm" (the all_gather / all_to_all
                                   output is the GEMM's A, m x k) or
                                   "gemm_feeds_collective" (the GEMM's output, m x n, is
                                   reduce_scattered / all_to_all'd): advised decomposed
                                   schedules, "chunked:C:cu" etc. (docs/model.md §7) */
  int tile_m, tile_n;          /**< the GEMM's own kernel (version 2): its output tile, as
                                   cuBLASLt's heuristic names it for the shape; both in [1, 65536],
                                   or both 0: the kernel of the profile's nearest measured
                                   shape (docs/model.md §1) */
  int split_k;                 /**< the kernel's split-K, in [1, 65536]; 0: 1 */
  int chained;                 /**< version 3: 0 alone (default); 1 issued in a prefetch
                                   chain (the previous pair still running, the host
                                   ahead), as `advise --chained`: no launch cost,
                                   collective-first on the library's CUs runs GEMM-first,
                                   the GEMM at its sustained time (docs/model.md §4.6);
                                   independent pairs only (a dependent pair:
                                   INVALID_ARGUMENT); any other value INVALID_ARGUMENT */
  const char* layout;          /**< version 4: how the operands lie in memory, which decides
                                   the leading dimensions (docs/model.md §1.1): NULL or "tn"
                                   (cuBLAS column-major A^T B, leading dimensions k, k, m:
                                   what `measure` runs and the CLI's default); "row_major"
                                   (PyTorch's x @ W, leading dimensions k and n). A dependent
                                   pair is priced row-major either way */
} c3a_pair;

/** What a framework sets to run the pair as advised (docs/capi.md, "Settings"). */
typedef struct c3a_settings {
  /** NCCL's CTA budget (ncclConfig_t maxCTAs / minCTAs), one CTA per SM: the CTAs the
   *  prediction assumed. 0 when the collective runs on copy engines. */
  int nccl_max_ctas;
  int nccl_min_ctas;
  /** 1 when an SM partition is advised (green contexts), else 0 and both counts 0. */
  int green_context;
  int green_gemm_sms;        /**< SMs of the GEMM's green context */
  int green_collective_sms;  /**< SMs of the collective's; 0 on copy engines */
  /** The launch order as a prefetch decision: overlap = 1 when the two run
   *  concurrently; prefetch = 1 when the collective is issued before the GEMM. */
  int overlap;
  int prefetch;
  /** The copy-engine implementation when transport is C3A_TRANSPORT_COPY_ENGINE: the
   *  variant the profile was calibrated with (e.g. "ce_push_batch_ovl"), or
   *  "unspecified"; "" on NCCL. */
  char copy_engine[C3A_NAME_SIZE];
} c3a_settings;

/** One advice: the recommended strategy and its runner-up. */
typedef struct c3a_advice {
  char strategy[C3A_NAME_SIZE];   /**< the recommended strategy's key: "sp", "rp:32", "dma" */
  char kind[C3A_NAME_SIZE];       /**< its kind: "serial", "base", "sp", "rp", "dma", "dma_rp" */
  c3a_launch_order order;
  c3a_transport transport;
  int collective_sms;             /**< SMs the collective uses (0 on copy engines) */
  int collective_ctas;            /**< its CTAs (one per SM; 0 on copy engines) */
  int gemm_sms;                   /**< SMs the GEMM may use */
  int chunks;                     /**< pieces the pair is decomposed into (1: whole; a
                                       chunked strategy of a dependent pair: C) */
  double predicted_s;             /**< predicted time of the pair under the strategy */
  double serial_s;                /**< predicted time run one after the other */
  double speedup;                 /**< serial_s / predicted_s */
  char runner_up[C3A_NAME_SIZE];  /**< the fastest other strategy's key ("" if none) */
  double runner_up_s;             /**< its predicted time (0 if none) */
  int strategy_count;             /**< strategies predicted */
  int warning_count;              /**< extrapolations (c3a_advise_warnings gives them) */
  c3a_settings settings;
} c3a_advice;

/** Totals of a plan: one training step's pairs, each under its advice. */
typedef struct c3a_plan_totals {
  int entries;         /**< pairs in the trace */
  double advised_s;    /**< sum of repeat x the recommended time */
  double serial_s;     /**< sum of repeat x the serial time */
  double base_s;       /**< sum of repeat x the GEMM-first time */
  int warning_count;   /**< warnings of every entry together */
} c3a_plan_totals;

/** What an advisor's profile is. */
typedef struct c3a_profile_info {
  char name[C3A_NAME_SIZE];  /**< "h200x2" */
  char gpu[C3A_NAME_SIZE];   /**< "NVIDIA H200" (truncated to fit) */
  int gpu_count;             /**< GPUs of its node: the most ranks it answers for */
  int compute_units;         /**< SMs (NVIDIA) or CUs (AMD) per GPU */
} c3a_profile_info;

/** An advisor over one hardware profile; opaque. */
typedef struct c3a_advisor c3a_advisor;

/** The API version of the loaded library (C3ADVISOR_API_VERSION it was built with). */
int c3a_version(void);
/** The library's release ("0.1.0"); a static string. */
const char* c3a_library_version(void);
/** The name of a status ("C3A_ERR_BAD_FILE"); a static string, "C3A_UNKNOWN" for any other
 *  value. Takes an int: any value may be passed (a c3a_status converts implicitly). */
const char* c3a_status_name(int status);
/** The message of this thread's last call: "" after a success. Valid until the thread's
 *  next call into the library. */
const char* c3a_last_error(void);

/** Parses a size as the command line writes it ("896MiB", "3.25GiB", "1.5GB", "4096")
 *  into `*bytes`. Errors: NULL_ARGUMENT, INVALID_ARGUMENT (zero, negative, malformed). */
c3a_status c3a_parse_size(const char* text, int64_t* bytes);

/** Names of the embedded profiles, sorted, separated by '\n', into `buf`
 *  (C3A_ERR_BUFFER_TOO_SMALL and `*needed` when it does not fit; `needed` may be NULL). */
c3a_status c3a_embedded_profiles(char* buf, size_t buf_size, size_t* needed);

/** Creates an advisor from an embedded profile name ("h200x2", "mi300x") or a profile
 *  YAML file path. Errors: NULL_ARGUMENT, PROFILE_NOT_FOUND, BAD_FILE (malformed or
 *  unusable profile). `*out` is NULL on failure. */
c3a_status c3a_advisor_create(const char* profile, c3a_advisor** out);
/** Frees an advisor; NULL is ignored. */
void c3a_advisor_destroy(c3a_advisor* advisor);
/** The advisor's profile. */
c3a_status c3a_advisor_profile(const c3a_advisor* advisor, c3a_profile_info* out);

/** Advises one pair into `out`. Errors: NULL_ARGUMENT, INVALID_ARGUMENT,
 *  OUT_OF_DOMAIN. */
c3a_status c3a_advise(const c3a_advisor* advisor, const c3a_pair* pair, c3a_advice* out);
/** The same advice as the JSON document `c3advisor advise --json` prints (schema in
 *  docs/cli.md), NUL-terminated, into `buf` of `buf_size` bytes. When it does not fit:
 *  C3A_ERR_BUFFER_TOO_SMALL, `*needed` set (bytes with the NUL), `buf` untouched.
 *  `needed` may be NULL; `buf` may be NULL when `buf_size` is 0 (a size query). */
c3a_status c3a_advise_json(const c3a_advisor* advisor, const c3a_pair* pair, char* buf,
                           size_t buf_size, size_t* needed);
/** The advice's warnings (extrapolations beyond what the profile measured), one per
 *  line, each ending in '\n' ("" when none), into `buf` as c3a_advise_json does. */
c3a_status c3a_advise_warnings(const c3a_advisor* advisor, const c3a_pair* pair, char* buf,
                               size_t buf_size, size_t* needed);

/** Plans a trace (one training step: pairs with repeat counts; docs/formats.md) read
 *  from the YAML file `trace_path` (c3a_plan_file) or given as YAML text (c3a_plan_yaml):
 *  fills `totals`, and the JSON document of `c3advisor plan --json` into `json` when
 *  `json_size` > 0 (as c3a_advise_json; `totals` is filled even when the buffer is too
 *  small). With `json` NULL and `json_size` 0 it fills only `totals` and returns C3A_OK
 *  (`*needed`, when `needed` is not NULL, says what the JSON would take). Errors: NULL_ARGUMENT, BAD_FILE
 *  (unreadable or malformed trace), OUT_OF_DOMAIN, BUFFER_TOO_SMALL. */
c3a_status c3a_plan_file(const c3a_advisor* advisor, const char* trace_path,
                         c3a_plan_totals* totals, char* json, size_t json_size, size_t* needed);
c3a_status c3a_plan_yaml(const c3a_advisor* advisor, const char* trace_yaml,
                         c3a_plan_totals* totals, char* json, size_t json_size, size_t* needed);

#ifdef __cplusplus
}
#endif

#endif /* C3ADVISOR_H */
