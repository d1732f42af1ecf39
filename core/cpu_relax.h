/* One pause of a polling loop: lets the sibling hyperthread run.  Shared
 * by the core, the plugins and the benchmarks' own loops. */
#ifndef PSHM_CPU_RELAX_H
#define PSHM_CPU_RELAX_H

static inline void pshm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
