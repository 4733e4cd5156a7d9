/* tests/capi/capi_test.c: the C API (include/c3advisor.h) from C99, compiled by the C
 * compiler and linked against libc3advisor.so. Run by ctest as
 *   c3_capi_test happy SOURCE_DIR    (every call's success path: CApiHappy)
 *   c3_capi_test errors SOURCE_DIR   (every error path: CApiErrors)
 *   c3_capi_test chained SOURCE_DIR CLI  (a chained pair against `CLI advise --chained`:
 *                                         CApiChained)
 * Each check prints what failed; the exit code is the number of failures (capped). */
#define _POSIX_C_SOURCE 200809L /* popen: the command line's output */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "c3advisor.h"

static int failures = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

/* A call's status, with its message when it is not the expected one. */
#define EXPECT_STATUS(call, want)                                                         \
  do {                                                                                    \
    c3a_status got_ = (call);                                                             \
    if (got_ != (want)) {                                                                 \
      fprintf(stderr, "%s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__, #call, \
              c3a_status_name(got_), c3a_last_error(), c3a_status_name(want));            \
      ++failures;                                                                         \
    }                                                                                     \
  } while (0)

static const char* source_dir = ".";

static c3a_pair make_pair(int64_t m, int64_t n, int64_t k, const char* collective, int64_t bytes, int ranks) {
  c3a_pair p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.n = n;
  p.k = k;
  p.dtype = "bf16";
  p.collective = collective;
  p.size_bytes = bytes;
  p.ranks = ranks;
  return p;
}

static c3a_advisor* create(const char* profile) {
  c3a_advisor* a = NULL;
  EXPECT_STATUS(c3a_advisor_create(profile, &a), C3A_OK);
  CHECK(a != NULL);
  return a;
}

/* `"key": "value"` appears in the JSON text. */
static int json_has(const char* json, const char* key, const char* value) {
  char needle[256];
  snprintf(needle, sizeof needle, "\"%s\": \"%s\"", key, value);
  return strstr(json, needle) != NULL;
}

/* The invariants every advice holds, and its agreement with the JSON document. */
static void check_advice(const c3a_advisor* a, const c3a_pair* pair, const c3a_advice* adv) {
  c3a_profile_info info;
  EXPECT_STATUS(c3a_advisor_profile(a, &info), C3A_OK);
  CHECK(adv->strategy[0] != '\0');
  CHECK(strncmp(adv->strategy, adv->kind, strlen(adv->kind)) == 0);
  CHECK(adv->predicted_s > 0 && isfinite(adv->predicted_s));
  CHECK(adv->serial_s > 0);
  /* the recommendation is within the tie margin of the fastest, never slower than serial */
  CHECK(adv->predicted_s <= adv->serial_s * 1.01);
  CHECK(fabs(adv->speedup - adv->serial_s / adv->predicted_s) < 1e-9 * adv->speedup);
  CHECK(adv->strategy_count >= 3);
  CHECK(adv->runner_up[0] != '\0' && strcmp(adv->runner_up, adv->strategy) != 0);
  CHECK(adv->runner_up_s > 0);
  CHECK(adv->chunks == 1);
  CHECK(adv->gemm_sms > 0 && adv->gemm_sms <= info.compute_units);
  if (adv->transport == C3A_TRANSPORT_COPY_ENGINE) {
    CHECK(strncmp(adv->strategy, "dma", 3) == 0);
    CHECK(adv->collective_sms == 0 && adv->collective_ctas == 0);
    CHECK(adv->settings.nccl_max_ctas == 0 && adv->settings.nccl_min_ctas == 0);
    CHECK(adv->settings.copy_engine[0] != '\0');
  } else {
    CHECK(adv->collective_ctas == adv->collective_sms && adv->collective_sms > 0);
    CHECK(adv->settings.nccl_max_ctas == adv->collective_ctas);
    CHECK(adv->settings.nccl_min_ctas == adv->collective_ctas);
    CHECK(adv->settings.copy_engine[0] == '\0');
  }
  if (strcmp(adv->kind, "rp") == 0) {
    CHECK(adv->settings.green_context == 1);
    CHECK(adv->settings.green_collective_sms == adv->collective_sms);
    CHECK(adv->settings.green_gemm_sms == info.compute_units - adv->collective_sms);
    CHECK(adv->gemm_sms == adv->settings.green_gemm_sms);
  } else if (strcmp(adv->kind, "dma_rp") == 0) {
    CHECK(adv->settings.green_context == 1 && adv->settings.green_collective_sms == 0);
    CHECK(adv->settings.green_gemm_sms == adv->gemm_sms);
  } else {
    CHECK(adv->settings.green_context == 0 && adv->settings.green_gemm_sms == 0);
  }
  CHECK(adv->settings.overlap == (adv->order != C3A_ORDER_SERIAL));
  CHECK(adv->settings.prefetch == (adv->order == C3A_ORDER_COLLECTIVE_FIRST));

  /* The JSON of the same call names the same recommendation and settings. */
  {
    size_t needed = 0;
    char* json;
    char field[160];
    EXPECT_STATUS(c3a_advise_json(a, pair, NULL, 0, &needed), C3A_ERR_BUFFER_TOO_SMALL);
    CHECK(needed > 100);
    json = (char*)malloc(needed);
    EXPECT_STATUS(c3a_advise_json(a, pair, json, needed, &needed), C3A_OK);
    CHECK(strlen(json) + 1 == needed);
    CHECK(strstr(json, "\"recommendation\": {\n    \"name\": \"") != NULL);
    snprintf(field, sizeof field, "\"recommendation\": {\n    \"name\": \"%s\"", adv->strategy);
    CHECK(strstr(json, field) != NULL);
    CHECK(json_has(json, "launch_order",
                   adv->order == C3A_ORDER_SERIAL       ? "serial"
                   : adv->order == C3A_ORDER_GEMM_FIRST ? "gemm_first"
                                                        : "collective_first"));
    if (adv->settings.copy_engine[0] != '\0') CHECK(json_has(json, "implementation", adv->settings.copy_engine));
    /* the runner-up is the fastest other strategy: the recommendation is within 1% of it,
       unless the advisor hedged (docs/model.md: the margin inside the expected error, the
       smallest predicted worst case recommended instead) */
    if (strstr(json, "\"hedged\": true") == NULL)
      CHECK(adv->runner_up_s * (1.01 + 1e-12) >= adv->predicted_s);
    else
      CHECK(strstr(json, "hedged") != NULL && adv->predicted_s <= adv->serial_s * 1.01);
    CHECK(json_has(json, "profile", info.name));
    free(json);
  }
}

/* The JSON document of c3a_advise_json (malloc'ed; NULL on failure). */
static char* advise_json(const c3a_advisor* a, const c3a_pair* pair) {
  size_t needed = 0;
  char* json;
  EXPECT_STATUS(c3a_advise_json(a, pair, NULL, 0, &needed), C3A_ERR_BUFFER_TOO_SMALL);
  json = (char*)malloc(needed);
  if (json != NULL && c3a_advise_json(a, pair, json, needed, NULL) != C3A_OK) {
    free(json);
    json = NULL;
  }
  CHECK(json != NULL);
  return json;
}

/* What `cli ARGS` writes to standard output (ARGS may redirect), malloc'ed, and its exit code. */
static char* run_cli(const char* cli, const char* args, int* exit_code) {
  char command[2048];
  char chunk[4096];
  char* out = (char*)calloc(1, 1);
  size_t size = 0, n;
  FILE* f;
  snprintf(command, sizeof command, "'%s' %s", cli, args);
  f = popen(command, "r");
  CHECK(f != NULL && out != NULL);
  if (f == NULL || out == NULL) {
    *exit_code = -1;
    return out;
  }
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    char* grown = (char*)realloc(out, size + n + 1);
    if (grown == NULL) break;
    out = grown;
    memcpy(out + size, chunk, n);
    size += n;
    out[size] = '\0';
  }
  {
    int status = pclose(f);
    *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return out;
}

/* Finds the first pair of `pairs` whose recommendation has kind `kind`. */
static int advise_until(const c3a_advisor* a, const char* kind, c3a_advice* out) {
  static const char* collectives[] = {"all_gather", "all_to_all", "reduce_scatter", "all_reduce"};
  static const int64_t sizes[] = {1 << 20, 16 << 20, 64 << 20, 256 << 20, 896LL << 20, 4LL << 30};
  static const int64_t gemms[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192},
                                     {8192, 57344, 8192}, {16384, 106496, 8192}, {2048, 8192, 2048}};
  size_t c, s, g;
  for (c = 0; c < 4; ++c)
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
      for (g = 0; g < sizeof gemms / sizeof gemms[0]; ++g) {
        c3a_pair p = make_pair(gemms[g][0], gemms[g][1], gemms[g][2], collectives[c], sizes[s], 0);
        if (c3a_advise(a, &p, out) != C3A_OK) continue;
        check_advice(a, &p, out);
        if (strcmp(out->kind, kind) == 0) return 1;
      }
  return 0;
}

static void test_happy(void) {
  c3a_advisor* a;
  c3a_advice adv;
  c3a_profile_info info;
  char names[512];
  size_t needed = 0;
  int64_t bytes = 0;

  CHECK(c3a_version() == C3ADVISOR_API_VERSION);
  CHECK(strlen(c3a_library_version()) >= 5);
  CHECK(strcmp(c3a_status_name(C3A_ERR_BAD_FILE), "C3A_ERR_BAD_FILE") == 0);
  CHECK(strcmp(c3a_status_name((c3a_status)99), "C3A_UNKNOWN") == 0);

  EXPECT_STATUS(c3a_parse_size("896MiB", &bytes), C3A_OK);
  CHECK(bytes == 896LL << 20);
  EXPECT_STATUS(c3a_embedded_profiles(names, sizeof names, &needed), C3A_OK);
  CHECK(strstr(names, "h200x2") != NULL && strstr(names, "mi300x") != NULL && strchr(names, '\n') != NULL);
  CHECK(needed == strlen(names) + 1);

  /* An embedded profile. */
  a = create("h200x2");
  EXPECT_STATUS(c3a_advisor_profile(a, &info), C3A_OK);
  CHECK(strcmp(info.name, "h200x2") == 0 && info.gpu_count == 2 && info.compute_units == 132);
  {
    c3a_pair p = make_pair(8192, 8192, 8192, "all_gather", 896LL << 20, 2);
    EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
    check_advice(a, &p, &adv);
    CHECK(adv.warning_count == 0);
    CHECK(strcmp(c3a_last_error(), "") == 0);
    p.ranks = 0; /* the profile's gpu_count: the same advice */
    {
      c3a_advice again;
      EXPECT_STATUS(c3a_advise(a, &p, &again), C3A_OK);
      CHECK(strcmp(again.strategy, adv.strategy) == 0 && again.predicted_s == adv.predicted_s);
    }
    p.dependency = "none";
    p.gemm_class = "memory_bound";
    EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
    check_advice(a, &p, &adv);
  }
  /* A dependent pair (size 0: the GEMM's A): a decomposed schedule with its chunks. */
  {
    c3a_pair p = make_pair(8192, 5120, 8192, "all_gather", 0, 2);
    p.dependency = "collective_feeds_gemm";
    EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
    CHECK(strncmp(adv.strategy, "chunked:", 8) == 0 && strcmp(adv.kind, "chunked") == 0);
    CHECK(adv.chunks >= 2 && adv.predicted_s < adv.serial_s);
    CHECK(adv.order == C3A_ORDER_COLLECTIVE_FIRST);
  }
  /* Each kind of settings: a partition, the copy engines (h200x2 was calibrated with
   * ce_push_batch_ovl), a launch order. */
  CHECK(advise_until(a, "rp", &adv));
  CHECK(advise_until(a, "dma", &adv));
  CHECK(strcmp(adv.settings.copy_engine, "ce_push_batch_ovl") == 0);
  CHECK(advise_until(a, "sp", &adv));
  /* Warnings: a size beyond the measured curves. */
  {
    c3a_pair p = make_pair(8192, 8192, 8192, "all_gather", 64LL << 30, 2);
    char text[4096];
    EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
    CHECK(adv.warning_count > 0);
    EXPECT_STATUS(c3a_advise_warnings(a, &p, text, sizeof text, &needed), C3A_OK);
    CHECK(strlen(text) > 10 && text[strlen(text) - 1] == '\n');
    p.size_bytes = 64 << 20;
    EXPECT_STATUS(c3a_advise_warnings(a, &p, text, sizeof text, NULL), C3A_OK);
    if (adv.warning_count == 0) CHECK(text[0] == '\0');
  }
  /* Plans: from a file and from the same text, with and without the JSON. */
  {
    char path[1024];
    c3a_plan_totals from_file, from_text;
    size_t json_needed = 0;
    char* json;
    char* yaml;
    long length;
    FILE* f;
    snprintf(path, sizeof path, "%s/tests/capi/trace_2gpu.yaml", source_dir);
    EXPECT_STATUS(c3a_plan_file(a, path, &from_file, NULL, 0, &json_needed), C3A_OK);
    CHECK(from_file.entries == 3);
    CHECK(from_file.advised_s > 0 && from_file.advised_s <= from_file.serial_s * 1.01);
    CHECK(from_file.advised_s <= from_file.base_s * 1.01);
    CHECK(json_needed > 100);
    json = (char*)malloc(json_needed);
    EXPECT_STATUS(c3a_plan_file(a, path, &from_file, json, json_needed, NULL), C3A_OK);
    CHECK(strstr(json, "\"totals\"") != NULL && json_has(json, "name", "capi_test_trace"));
    f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f != NULL) {
      fseek(f, 0, SEEK_END);
      length = ftell(f);
      fseek(f, 0, SEEK_SET);
      yaml = (char*)calloc((size_t)length + 1, 1);
      CHECK(fread(yaml, 1, (size_t)length, f) == (size_t)length);
      fclose(f);
      {
        char* json2 = (char*)malloc(json_needed);
        EXPECT_STATUS(c3a_plan_yaml(a, yaml, &from_text, json2, json_needed, NULL), C3A_OK);
        CHECK(from_text.advised_s == from_file.advised_s && from_text.entries == 3);
        CHECK(strcmp(json, json2) == 0);
        free(json2);
      }
      free(yaml);
    }
    free(json);
  }
  c3a_advisor_destroy(a);

  /* Version 4's layout: an odd m leads in tn (the runner's; the default) and not in
     row_major (PyTorch's), so h200x2 prices the tn GEMM on cuBLASLt's slower kernels. */
  {
    c3a_advice tn, row;
    c3a_pair p = make_pair(1093, 4096, 4096, "all_gather", 64LL << 20, 2);
    a = create("h200x2");
    EXPECT_STATUS(c3a_advise(a, &p, &tn), C3A_OK);
    p.layout = "row_major";
    EXPECT_STATUS(c3a_advise(a, &p, &row), C3A_OK);
    CHECK(tn.serial_s > 1.5 * row.serial_s);
    p.layout = "tn";
    EXPECT_STATUS(c3a_advise(a, &p, &row), C3A_OK);
    CHECK(row.serial_s == tn.serial_s);
    c3a_advisor_destroy(a);
  }

  /* A profile file (mi300x, 8 GPUs; it records no copy-engine implementation). */
  {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/profiles/mi300x.yaml", source_dir);
    a = create(path);
    EXPECT_STATUS(c3a_advisor_profile(a, &info), C3A_OK);
    CHECK(strcmp(info.name, "mi300x") == 0 && info.gpu_count == 8);
    if (advise_until(a, "dma", &adv)) CHECK(strcmp(adv.settings.copy_engine, "unspecified") == 0);
    c3a_advisor_destroy(a);
  }
  c3a_advisor_destroy(NULL);
}

static void test_errors(void) {
  c3a_advisor* a = (c3a_advisor*)&failures; /* must be set to NULL on failure */
  c3a_advice adv;
  c3a_pair p;
  char small[16];
  size_t needed = 0;
  int64_t bytes = 0;
  c3a_plan_totals totals;

  /* Profiles. */
  EXPECT_STATUS(c3a_advisor_create("no_such_profile", &a), C3A_ERR_PROFILE_NOT_FOUND);
  CHECK(a == NULL);
  CHECK(strstr(c3a_last_error(), "no_such_profile") != NULL && strstr(c3a_last_error(), "h200x2") != NULL);
  {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/capi/bad_profile.yaml", source_dir);
    EXPECT_STATUS(c3a_advisor_create(path, &a), C3A_ERR_BAD_FILE);
    CHECK(a == NULL);
    CHECK(strstr(c3a_last_error(), "bad_profile.yaml") != NULL);
  }
  EXPECT_STATUS(c3a_advisor_create(NULL, &a), C3A_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(c3a_advisor_create("h200x2", NULL), C3A_ERR_NULL_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "out") != NULL);
  EXPECT_STATUS(c3a_advisor_profile(NULL, NULL), C3A_ERR_NULL_ARGUMENT);

  a = create("h200x2");
  /* A success clears the message of an earlier failure. */
  p = make_pair(8192, 8192, 8192, "all_gather", 896LL << 20, 2);
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
  CHECK(strcmp(c3a_last_error(), "") == 0);

  /* Pairs. */
  p.m = 0;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(c3a_last_error()[0] != '\0');
  /* The GEMM's own kernel (version 2): both tile sizes or neither, split-K >= 0. */
  p = make_pair(2048, 4608, 6144, "all_gather", 24LL << 20, 2);
  p.tile_m = 192;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "tile_m") != NULL);
  p.tile_n = 192;
  p.split_k = -1;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  /* The command line's limits (advise --gemm-tile): every field at most 65536. */
  p.split_k = 65537;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "65536") != NULL);
  p.split_k = 0;
  p.tile_m = 2147483647;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  p.tile_m = 192;
  p.size_bytes = (1LL << 62) + 1; /* over the 2^62 bytes parse_size_bytes takes */
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "2^62") != NULL);
  p.size_bytes = 24LL << 20;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
  {
    /* Its waves price the partitions: rp:8 leaves 124 SMs, 3 waves of 264 CTAs instead of 2. */
    char with_tile[65536], without[65536];
    const char* rp8;
    double t_with = 0, t_without = 0;
    EXPECT_STATUS(c3a_advise_json(a, &p, with_tile, sizeof with_tile, NULL), C3A_OK);
    p.tile_m = p.tile_n = 0;
    EXPECT_STATUS(c3a_advise_json(a, &p, without, sizeof without, NULL), C3A_OK);
    rp8 = strstr(with_tile, "\"name\": \"rp:8\"");
    CHECK(rp8 != NULL && strstr(rp8, "\"predicted_s\": ") != NULL);
    if (rp8 != NULL) t_with = atof(strstr(rp8, "\"predicted_s\": ") + 15);
    rp8 = strstr(without, "\"name\": \"rp:8\"");
    CHECK(rp8 != NULL && strstr(rp8, "\"predicted_s\": ") != NULL);
    if (rp8 != NULL) t_without = atof(strstr(rp8, "\"predicted_s\": ") + 15);
    CHECK(t_with > 1.1 * t_without && t_without > 0);
  }
  /* chained (version 3): 0 (alone) or 1 (in a prefetch chain), nothing else. */
  p = make_pair(8192, 8192, 8192, "all_gather", 896LL << 20, 2);
  p.chained = 2;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "pair.chained") != NULL && strstr(c3a_last_error(), "2") != NULL);
  EXPECT_STATUS(c3a_advise_json(a, &p, small, sizeof small, &needed), C3A_ERR_INVALID_ARGUMENT);
  p.chained = -1;
  EXPECT_STATUS(c3a_advise_warnings(a, &p, small, sizeof small, &needed), C3A_ERR_INVALID_ARGUMENT);
  /* layout (version 4): NULL, "tn" or "row_major". */
  p = make_pair(8192, 8192, 8192, "all_gather", 896LL << 20, 2);
  p.layout = "column_major";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "row_major") != NULL);
  p.layout = "row_major";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_OK);
  p = make_pair(8192, 8192, 8192, "all_gather", 0, 2);
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "size") != NULL);
  p = make_pair(8192, 8192, 8192, "all_gather", 896LL << 20, 1);
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  p.ranks = -2;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  p.ranks = 8; /* h200x2 is one node of 2 GPUs */
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_OUT_OF_DOMAIN);
  CHECK(strstr(c3a_last_error(), "8") != NULL);
  p = make_pair(8192, 8192, 8192, "all_gather", 896LL << 20, 2);
  p.dtype = "int4";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "int4") != NULL);
  p.dtype = NULL; /* bf16 */
  p.collective = "broadcast";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "broadcast") != NULL);
  p.collective = NULL;
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_NULL_ARGUMENT);
  p.collective = "all_gather";
  p.gemm_class = "fast";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  p.gemm_class = NULL;
  p.dependency = "gemm_output_is_collective_input";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "gemm_output_is_collective_input") != NULL);
  EXPECT_STATUS(c3a_advise_json(a, &p, small, sizeof small, &needed), C3A_ERR_INVALID_ARGUMENT);
  /* A dependent pair whose size is not the GEMM operand's: the message says which. */
  p.dependency = "collective_feeds_gemm";
  EXPECT_STATUS(c3a_advise(a, &p, &adv), C3A_ERR_INVALID_ARGUMENT);
  CHECK(strstr(c3a_last_error(), "m x k") != NULL);
  p.dependency = "none";
  EXPECT_STATUS(c3a_advise(NULL, &p, &adv), C3A_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(c3a_advise(a, NULL, &adv), C3A_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(c3a_advise(a, &p, NULL), C3A_ERR_NULL_ARGUMENT);

  /* Buffers: too small says the size needed, and leaves the buffer as it was. */
  memset(small, 'x', sizeof small);
  needed = 0;
  EXPECT_STATUS(c3a_advise_json(a, &p, small, sizeof small, &needed), C3A_ERR_BUFFER_TOO_SMALL);
  CHECK(needed > sizeof small);
  CHECK(small[0] == 'x');
  CHECK(strstr(c3a_last_error(), "needed") != NULL);
  EXPECT_STATUS(c3a_advise_json(a, &p, NULL, 100, &needed), C3A_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(c3a_advise_json(a, &p, small, sizeof small, NULL), C3A_ERR_BUFFER_TOO_SMALL);
  EXPECT_STATUS(c3a_embedded_profiles(small, 3, &needed), C3A_ERR_BUFFER_TOO_SMALL);
  CHECK(needed > 3);
  EXPECT_STATUS(c3a_parse_size("0", &bytes), C3A_ERR_INVALID_ARGUMENT);
  EXPECT_STATUS(c3a_parse_size("12 parsecs", &bytes), C3A_ERR_INVALID_ARGUMENT);
  EXPECT_STATUS(c3a_parse_size(NULL, &bytes), C3A_ERR_NULL_ARGUMENT);

  /* Plans. */
  EXPECT_STATUS(c3a_plan_file(a, "/no/such/trace.yaml", &totals, NULL, 0, NULL), C3A_ERR_BAD_FILE);
  CHECK(strstr(c3a_last_error(), "/no/such/trace.yaml") != NULL);
  EXPECT_STATUS(c3a_plan_yaml(a, "schema_version: 1\nentries: [1, 2\n", &totals, NULL, 0, NULL), C3A_ERR_BAD_FILE);
  EXPECT_STATUS(c3a_plan_yaml(a, "schema_version: 1\nname: x\nentries:\n  - {name: a, gemm: 0x8x8, collective: all_gather, size: 1MiB, ranks: 2, repeat: 1}\n",
                              &totals, NULL, 0, NULL),
                C3A_ERR_BAD_FILE);
  EXPECT_STATUS(c3a_plan_yaml(a, "schema_version: 1\nname: x\nentries:\n  - {name: a, gemm: 8x8x8, collective: all_gather, size: 1MiB, ranks: 8, repeat: 1}\n",
                              &totals, NULL, 0, NULL),
                C3A_ERR_OUT_OF_DOMAIN);
  EXPECT_STATUS(c3a_plan_yaml(a, NULL, &totals, NULL, 0, NULL), C3A_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(c3a_plan_yaml(a, "x: 1\n", NULL, NULL, 0, NULL), C3A_ERR_NULL_ARGUMENT);
  {
    const char* ok = "schema_version: 1\nname: x\nentries:\n  - {name: a, gemm: 8192x8192x8192, collective: all_gather, size: 1GiB, ranks: 2, repeat: 3}\n";
    memset(&totals, 0, sizeof totals);
    EXPECT_STATUS(c3a_plan_yaml(a, ok, &totals, small, sizeof small, &needed), C3A_ERR_BUFFER_TOO_SMALL);
    CHECK(totals.entries == 1 && totals.advised_s > 0 && needed > sizeof small);
  }
  c3a_advisor_destroy(a);
}

/* Version 3's chained pair (docs/model.md §4.6) is the command line's `advise --chained`. */
static void test_chained(const char* cli) {
  static const char* args =
      "advise --profile h200x2-torch --gemm 8192x6144x4096 --collective all_gather:50331648 --ranks 2 --json";
  c3a_advisor* a = create("h200x2-torch");
  c3a_pair p = make_pair(8192, 6144, 4096, "all_gather", 50331648, 2);
  c3a_advice alone, chained;
  char command[512];
  char message[1024];
  char *json, *expected;
  int code = 0;

  EXPECT_STATUS(c3a_advise(a, &p, &alone), C3A_OK);
  p.chained = 1;
  EXPECT_STATUS(c3a_advise(a, &p, &chained), C3A_OK);
  check_advice(a, &p, &chained);
  /* Chained, sp runs as base and nothing pays a launch: here the advice moves from sp to dma. */
  CHECK(strcmp(alone.strategy, "sp") == 0 && strcmp(chained.strategy, "dma") == 0);
  CHECK(chained.predicted_s != alone.predicted_s);
  /* Byte for byte the document of the command line, with and without --chained. */
  for (p.chained = 0; p.chained <= 1; ++p.chained) {
    snprintf(command, sizeof command, "%s%s 2>/dev/null", args, p.chained ? " --chained" : "");
    json = advise_json(a, &p);
    expected = run_cli(cli, command, &code);
    CHECK(code == 0);
    CHECK(json != NULL && strcmp(json, expected) == 0);
    CHECK(json != NULL && (strstr(json, "\"chained\": true") != NULL) == p.chained);
    free(json);
    free(expected);
  }
  /* A dependent pair keeps its own schedule: refused as the command line refuses it. */
  p = make_pair(8192, 5120, 8192, "all_gather", 0, 2);
  p.dependency = "collective_feeds_gemm";
  p.chained = 1;
  EXPECT_STATUS(c3a_advise(a, &p, &chained), C3A_ERR_INVALID_ARGUMENT);
  snprintf(message, sizeof message, "c3advisor: error: --chained: %s\n", c3a_last_error());
  CHECK(strstr(message, "own schedule") != NULL);
  expected = run_cli(cli,
                     "advise --profile h200x2-torch --gemm 8192x5120x8192 --collective all_gather "
                     "--dependency collective_feeds_gemm --chained 2>&1 >/dev/null",
                     &code);
  CHECK(code == 2);
  CHECK(strcmp(expected, message) == 0);
  free(expected);
  c3a_advisor_destroy(a);
}

int main(int argc, char** argv) {
  const int chained = argc == 4 && strcmp(argv[1], "chained") == 0;
  if (argc != 3 && !chained) {
    fprintf(stderr, "usage: %s happy|errors SOURCE_DIR, or %s chained SOURCE_DIR CLI\n", argv[0], argv[0]);
    return 2;
  }
  source_dir = argv[2];
  if (chained) {
    test_chained(argv[3]);
  } else if (strcmp(argv[1], "happy") == 0) {
    test_happy();
  } else if (strcmp(argv[1], "errors") == 0) {
    test_errors();
  } else {
    fprintf(stderr, "unknown test '%s'\n", argv[1]);
    return 2;
  }
  if (failures > 0) fprintf(stderr, "%d checks failed\n", failures);
  else printf("%s: every check passed\n", argv[1]);
  return failures > 100 ? 100 : failures;
}
