/* Removing a PE's /dev/shm objects when it dies under a launcher that
 * does not (anything but oshrun). */
#ifndef PSHM_SWEEPER_H
#define PSHM_SWEEPER_H

/* Once per process; best effort (without a helper nothing changes). */
void pshm_sweeper_start(void);

#endif
