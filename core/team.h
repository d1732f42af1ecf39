/* Teams: the world team, the shared (node) team, and split teams. */
#ifndef PSHM_TEAM_H
#define PSHM_TEAM_H

#include "pshm.h"

struct pshm_team {
    int my_pe;  /* -1 if this PE is not a member */
    int n_pes;
    int *world; /* member -> world PE; NULL for the world team */
};

void pshm_teams_init(void) PSHM_HIDDEN;
void pshm_teams_fini(void) PSHM_HIDDEN;

#endif
