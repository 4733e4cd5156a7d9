/* tests/capi/capi_threads.c: one advisor called from 8 threads at once (ctest
 * CApiThreads; the lead runs it under ThreadSanitizer). Every thread advises the same
 * pairs, in a different order, many times, as struct and as JSON, and checks each
 * result equals the one computed before the threads started; every thread also makes
 * failing calls with a message of its own and checks that c3a_last_error() gives its
 * own message, not another thread's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c3advisor.h"

enum { kThreads = 8, kPairs = 12, kRounds = 25 };

static c3a_advisor* advisor;
static c3a_pair pairs[kPairs];
static c3a_advice expected[kPairs];
static char* expected_json[kPairs];

static int same_advice(const c3a_advice* a, const c3a_advice* b) {
  return strcmp(a->strategy, b->strategy) == 0 && strcmp(a->kind, b->kind) == 0 && a->order == b->order &&
         a->transport == b->transport && a->collective_sms == b->collective_sms &&
         a->collective_ctas == b->collective_ctas && a->gemm_sms == b->gemm_sms && a->chunks == b->chunks &&
         a->predicted_s == b->predicted_s && a->serial_s == b->serial_s && a->speedup == b->speedup &&
         strcmp(a->runner_up, b->runner_up) == 0 && a->runner_up_s == b->runner_up_s &&
         a->strategy_count == b->strategy_count && a->warning_count == b->warning_count &&
         a->settings.nccl_max_ctas == b->settings.nccl_max_ctas &&
         a->settings.nccl_min_ctas == b->settings.nccl_min_ctas &&
         a->settings.green_context == b->settings.green_context &&
         a->settings.green_gemm_sms == b->settings.green_gemm_sms &&
         a->settings.green_collective_sms == b->settings.green_collective_sms &&
         a->settings.overlap == b->settings.overlap && a->settings.prefetch == b->settings.prefetch &&
         strcmp(a->settings.copy_engine, b->settings.copy_engine) == 0;
}

static char* advise_json(const c3a_pair* p) {
  size_t needed = 0;
  char* buf;
  if (c3a_advise_json(advisor, p, NULL, 0, &needed) != C3A_ERR_BUFFER_TOO_SMALL) return NULL;
  buf = (char*)malloc(needed);
  if (buf != NULL && c3a_advise_json(advisor, p, buf, needed, NULL) != C3A_OK) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void* worker(void* arg) {
  const int id = (int)(size_t)arg;
  long mismatches = 0;
  int round, i;
  char dtype[32];
  snprintf(dtype, sizeof dtype, "dtype_of_thread_%d", id);
  for (round = 0; round < kRounds; ++round) {
    for (i = 0; i < kPairs; ++i) {
      const int which = (i * 5 + id + round) % kPairs;
      c3a_advice got;
      c3a_pair bad = pairs[which];
      if (c3a_advise(advisor, &pairs[which], &got) != C3A_OK || !same_advice(&got, &expected[which])) {
        fprintf(stderr, "thread %d: pair %d: advice differs from the single-threaded one\n", id, which);
        ++mismatches;
      }
      if (round % 5 == 0) {
        char* json = advise_json(&pairs[which]);
        if (json == NULL || strcmp(json, expected_json[which]) != 0) {
          fprintf(stderr, "thread %d: pair %d: JSON differs from the single-threaded one\n", id, which);
          ++mismatches;
        }
        free(json);
      }
      /* This thread's own failure and message. */
      bad.dtype = dtype;
      if (c3a_advise(advisor, &bad, &got) != C3A_ERR_INVALID_ARGUMENT ||
          strstr(c3a_last_error(), dtype) == NULL) {
        fprintf(stderr, "thread %d: its error message is '%s'\n", id, c3a_last_error());
        ++mismatches;
      }
    }
  }
  return (void*)mismatches;
}

int main(void) {
  static const char* collectives[] = {"all_gather", "all_to_all", "reduce_scatter", "all_reduce"};
  pthread_t threads[kThreads];
  long failures = 0;
  int i;
  if (c3a_advisor_create("h200x2", &advisor) != C3A_OK) {
    fprintf(stderr, "c3a_advisor_create: %s\n", c3a_last_error());
    return 1;
  }
  for (i = 0; i < kPairs; ++i) {
    memset(&pairs[i], 0, sizeof pairs[i]);
    pairs[i].m = 4096 + 2048 * (i % 4);
    pairs[i].n = 8192 << (i % 3);
    pairs[i].k = 8192;
    pairs[i].dtype = i % 5 == 0 ? "fp8" : "bf16";
    pairs[i].collective = collectives[i % 4];
    pairs[i].size_bytes = (int64_t)(64 + 160 * i) << 20;
    pairs[i].ranks = 2;
    if (c3a_advise(advisor, &pairs[i], &expected[i]) != C3A_OK) {
      fprintf(stderr, "pair %d: %s\n", i, c3a_last_error());
      return 1;
    }
    expected_json[i] = advise_json(&pairs[i]);
    if (expected_json[i] == NULL) {
      fprintf(stderr, "pair %d: no JSON: %s\n", i, c3a_last_error());
      return 1;
    }
  }
  for (i = 0; i < kThreads; ++i)
    if (pthread_create(&threads[i], NULL, worker, (void*)(size_t)i) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  for (i = 0; i < kThreads; ++i) {
    void* result = NULL;
    pthread_join(threads[i], &result);
    failures += (long)result;
  }
  for (i = 0; i < kPairs; ++i) free(expected_json[i]);
  c3a_advisor_destroy(advisor);
  if (failures > 0) {
    fprintf(stderr, "%ld results differ from the single-threaded ones\n", failures);
    return 1;
  }
  printf("%d threads x %d rounds x %d pairs: every result equals the single-threaded one\n", kThreads, kRounds,
         kPairs);
  return 0;
}
