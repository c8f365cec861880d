/* What pvec_init reads from the environment (pvec.h section 2), run by CTest with the
 * environment set: `options_env good` with PVEC_IPC=0 and PVEC_STAGED_TRANSFER=2 must see
 * both from the environment and the others at their defaults; `options_env bad` with
 * PVEC_SHM=maybe must see pvec_init refuse (INVALID_ARGUMENT naming PVEC_SHM) and start
 * nothing. `options_env set` with PVEC_IPC=0: a pvec_options_set before pvec_init wins. */
#include <pvec.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;
#define CHECK(c)                                                     \
  do {                                                               \
    if (!(c)) {                                                      \
      fprintf(stderr, "options_env:%d: failed: %s\n", __LINE__, #c); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

static pvec_option_info info_of(const char* name) {
  int n = 0, k;
  pvec_option_info o = PVEC_OPTION_INFO_INIT;
  pvec_options_get_count(&n);
  for (k = 0; k < n; ++k) {
    pvec_option_info q = PVEC_OPTION_INFO_INIT;
    if (pvec_options_get_info(k, &q) == PVEC_SUCCESS && strcmp(q.name, name) == 0) return q;
  }
  fprintf(stderr, "options_env: no option %s\n", name);
  ++failures;
  return o;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "good";
  int flag = -1;
  if (strcmp(mode, "bad") == 0) {
    pvec_status s = pvec_init(&argc, &argv);
    CHECK(s == PVEC_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(pvec_last_error(), "PVEC_SHM") != NULL);
    CHECK(strstr(pvec_last_error(), "maybe") != NULL);
    CHECK(pvec_initialized(&flag) == PVEC_SUCCESS && flag == 0);
    return failures ? 1 : 0;
  }
  /* Before pvec_init: the defaults, whatever the environment says. */
  CHECK(info_of("PVEC_IPC").value == 1);
  CHECK(info_of("PVEC_IPC").source == PVEC_OPTION_DEFAULT);
  if (strcmp(mode, "set") == 0) CHECK(pvec_options_set("PVEC_IPC", "1") == PVEC_SUCCESS);
  CHECK(pvec_init(&argc, &argv) == PVEC_SUCCESS);
  if (strcmp(mode, "set") == 0) {
    CHECK(info_of("PVEC_IPC").value == 1);
    CHECK(info_of("PVEC_IPC").source == PVEC_OPTION_SET);
  } else {
    const char* text = NULL;
    CHECK(info_of("PVEC_IPC").value == 0);
    CHECK(info_of("PVEC_IPC").source == PVEC_OPTION_ENVIRONMENT);
    CHECK(info_of("PVEC_STAGED_TRANSFER").value == 2);
    CHECK(info_of("PVEC_STAGED_TRANSFER").source == PVEC_OPTION_ENVIRONMENT);
    CHECK(info_of("PVEC_SHM").value == 1);
    CHECK(info_of("PVEC_SHM").source == PVEC_OPTION_DEFAULT);
    CHECK(info_of("PVEC_MPI_CUDA_AWARE").value == -1);
    CHECK(pvec_options_get_text(&text) == PVEC_SUCCESS);
    CHECK(text != NULL && strstr(text, "PVEC_IPC=0 (environment; default 1)") != NULL);
    if (text != NULL) printf("%s", text);
  }
  CHECK(pvec_finalize() == PVEC_SUCCESS);
  return failures ? 1 : 0;
}
