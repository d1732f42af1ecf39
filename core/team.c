/* The predefined teams.  SHMEM_TEAM_SHARED holds the PEs whose heaps this
 * PE maps: with the bypass on, every PE of this node. */
#include <stdlib.h>

#include "api.h"
#include "init.h"
#include "team.h"

struct pshm_team pshm_team_world PSHM_API;
struct pshm_team pshm_team_shared PSHM_API;

void pshm_teams_init(void)
{
    pshm_team_world.my_pe = pshm_g.my_pe;
    pshm_team_world.n_pes = pshm_g.n_pes;
    pshm_team_world.world = NULL;

    int n = 0;
    int *w = malloc(sizeof(int) * (size_t)pshm_g.n_pes);
    for (int r = 0; r < pshm_g.n_pes; r++)
        if (r == pshm_g.my_pe || pshm_g.peer[r].base[PSHM_SEG_HEAP])
            w[n++] = r;
    pshm_team_shared.world = w;
    pshm_team_shared.n_pes = n;
    pshm_team_shared.my_pe = -1;
    for (int i = 0; i < n; i++)
        if (w[i] == pshm_g.my_pe)
            pshm_team_shared.my_pe = i;
}

void pshm_teams_fini(void)
{
    free(pshm_team_shared.world);
    pshm_team_shared.world = NULL;
}
