/* A clock moved by MOVED_CLOCK_OFFSET seconds, preloaded into a process that runs Anki. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <sys/time.h>

static long long offset(void) {
    const char *text = getenv("MOVED_CLOCK_OFFSET");
    return text ? atoll(text) : 0;
}

int clock_gettime(clockid_t clock, struct timespec *spec) {
    static int (*real)(clockid_t, struct timespec *) = 0;
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, spec);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        spec->tv_sec += offset();
    }
    return result;
}

int gettimeofday(struct timeval *value, void *zone) {
    struct timespec spec;
    clock_gettime(CLOCK_REALTIME, &spec);
    if (value) { value->tv_sec = spec.tv_sec; value->tv_usec = spec.tv_nsec / 1000; }
    return 0;
}

time_t time(time_t *out) {
    struct timespec spec;
    clock_gettime(CLOCK_REALTIME, &spec);
    if (out) *out = spec.tv_sec;
    return spec.tv_sec;
}
