/* A C program's view of c3advisor: the installed header and libc3advisor.so. */
#include <c3advisor.h>
#include <stdio.h>

int main(void) {
  c3a_advisor* advisor = NULL;
  c3a_pair pair = {8192, 8192, 8192, "bf16", "all_gather", 896LL << 20, 8, NULL, "none"};
  c3a_advice advice;
  if (c3a_version() != C3ADVISOR_API_VERSION) return 1;
  if (c3a_advisor_create("mi300x", &advisor) != C3A_OK || c3a_advise(advisor, &pair, &advice) != C3A_OK) {
    fprintf(stderr, "c3advisor: %s\n", c3a_last_error());
    return 1;
  }
  printf("C: recommend %s (%.3f ms)\n", advice.strategy, advice.predicted_s * 1e3);
  c3a_advisor_destroy(advisor);
  return 0;
}
