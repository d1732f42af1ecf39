"""The prose of the section 3 man pages (gen/gen_man.py): per family page,
(one-line summary, description, return values).  Text is roff-ready: \\fB
bold\\fR, \\fI italic\\fR; paragraphs are separated by blank lines.  The
typed families' pages are filled from small tables so that, e.g., every
atomic operation says the same things the same way.
"""

NO_RETURN = "None."
COLL_RETURN = "Zero on success, nonzero otherwise."

PAGES = {}


def page(core, summary, description, returns=NO_RETURN, group=None):
    PAGES[core] = (summary, description.strip(), returns.strip(), group)


# ---- remote memory access ---------------------------------------------------
_COMPLETE_PUT = ("The call returns when \\fIsource\\fR may be reused; the data is known to be "
                 "delivered at \\fIpe\\fR only after \\fBshmem_quiet\\fR(3) (or a barrier).")
_NBI = ("The call may return before the transfer has started: the buffers may be reused, and "
        "the data is known to be in place, only after \\fBshmem_quiet\\fR(3) on the same context.")
page("put", "copy contiguous data to a remote PE", """
Copies \\fInelems\\fR elements (bytes for \\fBshmem_putmem\\fR, SIZE-bit words for
\\fBshmem_put\\fISIZE\\fR) from the local \\fIsource\\fR to the symmetric \\fIdest\\fR on PE
\\fIpe\\fR. """ + _COMPLETE_PUT, group="rma")
page("get", "copy contiguous data from a remote PE", """
Copies \\fInelems\\fR elements (bytes for \\fBshmem_getmem\\fR) from the symmetric \\fIsource\\fR
on PE \\fIpe\\fR to the local \\fIdest\\fR.  The call returns when the data is in \\fIdest\\fR.
""", group="rma")
page("put_nbi", "start a nonblocking copy of contiguous data to a remote PE", """
Starts copying \\fInelems\\fR elements from the local \\fIsource\\fR to the symmetric
\\fIdest\\fR on PE \\fIpe\\fR. """ + _NBI, group="rma")
page("get_nbi", "start a nonblocking copy of contiguous data from a remote PE", """
Starts copying \\fInelems\\fR elements from the symmetric \\fIsource\\fR on PE \\fIpe\\fR to the
local \\fIdest\\fR. """ + _NBI, group="rma")
page("p", "write one element to a remote PE", """
Writes \\fIvalue\\fR to the symmetric \\fIdest\\fR on PE \\fIpe\\fR. """ + _COMPLETE_PUT, group="rma")
page("g", "read one element from a remote PE", """
Reads the symmetric \\fIsource\\fR on PE \\fIpe\\fR.
""", "The value read.", group="rma")
_STRIDE = ("Strides \\fIdst\\fR and \\fIsst\\fR count elements, not bytes, between consecutive "
           "elements of \\fIdest\\fR and \\fIsource\\fR.")
page("iput", "copy strided data to a remote PE", """
Copies \\fInelems\\fR elements from the local \\fIsource\\fR, every \\fIsst\\fR-th element, to the
symmetric \\fIdest\\fR on PE \\fIpe\\fR, every \\fIdst\\fR-th element. """ + _STRIDE + " " + _COMPLETE_PUT,
     group="rma")
page("iget", "copy strided data from a remote PE", """
Copies \\fInelems\\fR elements from the symmetric \\fIsource\\fR on PE \\fIpe\\fR, every
\\fIsst\\fR-th element, to the local \\fIdest\\fR, every \\fIdst\\fR-th element. """ + _STRIDE +
     " The call returns when the data is in \\fIdest\\fR.", group="rma")
_BLOCK = ("\\fInblocks\\fR blocks of \\fIbsize\\fR contiguous elements; \\fIdst\\fR and \\fIsst\\fR "
          "count elements between the starts of consecutive blocks.")
page("ibput", "copy blocks of strided data to a remote PE", """
Copies """ + _BLOCK + """  The blocks come from the local \\fIsource\\fR and go to the symmetric
\\fIdest\\fR on PE \\fIpe\\fR. """ + _COMPLETE_PUT, group="rma")
page("ibget", "copy blocks of strided data from a remote PE", """
Copies """ + _BLOCK + """  The blocks come from the symmetric \\fIsource\\fR on PE \\fIpe\\fR and go to
the local \\fIdest\\fR.  The call returns when the data is in \\fIdest\\fR.
""", group="rma")

# ---- put with signal and signals ---------------------------------------------
_SIG = ("After the data, the signal word \\fIsig_addr\\fR on PE \\fIpe\\fR is updated atomically "
        "with \\fIsignal\\fR: replaced when \\fIsig_op\\fR is \\fBSHMEM_SIGNAL_SET\\fR, added to when it "
        "is \\fBSHMEM_SIGNAL_ADD\\fR.  A PE that sees the new signal value also sees the data.")
page("put_signal", "copy data to a remote PE and then update a signal there", """
Copies \\fInelems\\fR elements from the local \\fIsource\\fR to the symmetric \\fIdest\\fR on PE
\\fIpe\\fR. """ + _SIG + " The call returns when \\fIsource\\fR may be reused.", group="signal")
page("put_signal_nbi", "start a copy to a remote PE followed by a signal update", """
As \\fBshmem_put_signal\\fR(3), but the call may return at once. """ + _SIG + " " + _NBI,
     group="signal")
page("signal_fetch", "read a local signal word atomically", """
Reads the local signal word \\fIsig_addr\\fR atomically with respect to signal updates.
""", "The value of the signal word.", group="signal")
page("signal_add", "add to a remote signal word", """
Atomically adds \\fIsignal\\fR to the signal word \\fIsig_addr\\fR on PE \\fIpe\\fR.
""", group="signal")
page("signal_set", "set a remote signal word", """
Atomically writes \\fIsignal\\fR to the signal word \\fIsig_addr\\fR on PE \\fIpe\\fR.
""", group="signal")
page("signal_wait_until", "wait for a local signal word to satisfy a comparison", """
Blocks until the local signal word \\fIsig_addr\\fR compares to \\fIcmp_value\\fR as \\fIcmp\\fR says
(\\fBSHMEM_CMP_EQ\\fR, \\fB_NE\\fR, \\fB_GT\\fR, \\fB_GE\\fR, \\fB_LT\\fR or \\fB_LE\\fR).
""", "The value of the signal word that satisfied the comparison.", group="signal")

# ---- atomic memory operations -------------------------------------------------
_AMO = ("The operation is atomic with respect to the other atomic operations on the same "
        "object by any PE.")
_AMO_NBI = ("The \\fB_nbi\\fR forms store the fetched value in the local \\fIfetch\\fR and may "
            "return at once; \\fIfetch\\fR holds the value only after \\fBshmem_quiet\\fR(3).")
for core, summary, what, ret in [
    ("atomic_fetch", "atomically read a remote object", "reads the symmetric \\fIsource\\fR on PE \\fIpe\\fR",
     "The value read."),
    ("atomic_set", "atomically write a remote object", "writes \\fIvalue\\fR to \\fIdest\\fR on PE \\fIpe\\fR",
     NO_RETURN),
    ("atomic_swap", "atomically exchange a remote object",
     "writes \\fIvalue\\fR to \\fIdest\\fR on PE \\fIpe\\fR and fetches the previous value", "The previous value."),
    ("atomic_compare_swap", "atomically compare and exchange a remote object",
     "writes \\fIvalue\\fR to \\fIdest\\fR on PE \\fIpe\\fR if it equals \\fIcond\\fR, and fetches the "
     "previous value in any case", "The previous value: equal to \\fIcond\\fR when the write happened."),
    ("atomic_fetch_inc", "atomically increment a remote object and fetch it",
     "adds one to \\fIdest\\fR on PE \\fIpe\\fR and fetches the previous value", "The previous value."),
    ("atomic_inc", "atomically increment a remote object", "adds one to \\fIdest\\fR on PE \\fIpe\\fR", NO_RETURN),
    ("atomic_fetch_add", "atomically add to a remote object and fetch it",
     "adds \\fIvalue\\fR to \\fIdest\\fR on PE \\fIpe\\fR and fetches the previous value", "The previous value."),
    ("atomic_add", "atomically add to a remote object", "adds \\fIvalue\\fR to \\fIdest\\fR on PE \\fIpe\\fR",
     NO_RETURN),
]:
    page(core, summary, "Atomically " + what + ".  " + _AMO + "\n\n" + _AMO_NBI, ret, group="amo")
for op, name in (("and", "AND"), ("or", "OR"), ("xor", "exclusive OR")):
    page("atomic_fetch_" + op, "atomic bitwise %s on a remote object, fetching" % name,
         "Atomically replaces \\fIdest\\fR on PE \\fIpe\\fR with its bitwise %s with \\fIvalue\\fR and "
         "fetches the previous value.  %s\n\n%s" % (name, _AMO, _AMO_NBI), "The previous value.", group="amo")
    page("atomic_" + op, "atomic bitwise %s on a remote object" % name,
         "Atomically replaces \\fIdest\\fR on PE \\fIpe\\fR with its bitwise %s with \\fIvalue\\fR.  %s"
         % (name, _AMO), group="amo")

# ---- point-to-point synchronization ----------------------------------------------
_CMP = ("\\fIcmp\\fR is one of \\fBSHMEM_CMP_EQ\\fR, \\fBSHMEM_CMP_NE\\fR, \\fBSHMEM_CMP_GT\\fR, "
        "\\fBSHMEM_CMP_GE\\fR, \\fBSHMEM_CMP_LT\\fR, \\fBSHMEM_CMP_LE\\fR; the objects are symmetric and "
        "written by other PEs (by RMA or atomics).")
_SET = ("Of the \\fInelems\\fR objects of \\fIivars\\fR, those whose entry in \\fIstatus\\fR is "
        "nonzero are left out (\\fIstatus\\fR may be NULL).")
_VEC = {"": "\\fIcmp_value\\fR", "_vector": "their own entry of \\fIcmp_values\\fR"}
page("wait_until", "wait for a local object to satisfy a comparison", """
Blocks until the local object \\fIivar\\fR compares to \\fIcmp_value\\fR as \\fIcmp\\fR says. """ + _CMP,
     group="p2p")
page("test", "test whether a local object satisfies a comparison", """
Tests, without blocking, whether the local object \\fIivar\\fR compares to \\fIcmp_value\\fR as
\\fIcmp\\fR says. """ + _CMP, "1 when the comparison holds, 0 otherwise.", group="p2p")
for vec in ("", "_vector"):
    against = _VEC[vec]
    page("wait_until_all" + vec, "wait for every object of a set to satisfy a comparison",
         "Blocks until every selected object compares to %s as \\fIcmp\\fR says.  %s  %s"
         % (against, _SET, _CMP), group="p2p")
    page("wait_until_any" + vec, "wait for one object of a set to satisfy a comparison",
         "Blocks until at least one selected object compares to %s as \\fIcmp\\fR says.  %s  %s"
         % (against, _SET, _CMP),
         "The index of an object that satisfied the comparison; \\fBSIZE_MAX\\fR when every object "
         "is left out.", group="p2p")
    page("wait_until_some" + vec, "wait for objects of a set to satisfy a comparison",
         "Blocks until at least one selected object compares to %s as \\fIcmp\\fR says, and stores "
         "the indices of all that do in \\fIindices\\fR.  %s  %s" % (against, _SET, _CMP),
         "The number of indices stored (0 when every object is left out).", group="p2p")
    page("test_all" + vec, "test whether every object of a set satisfies a comparison",
         "Tests, without blocking, whether every selected object compares to %s as \\fIcmp\\fR "
         "says.  %s  %s" % (against, _SET, _CMP), "1 when every selected object does, 0 otherwise.",
         group="p2p")
    page("test_any" + vec, "test whether an object of a set satisfies a comparison",
         "Tests, without blocking, whether a selected object compares to %s as \\fIcmp\\fR says.  %s  %s"
         % (against, _SET, _CMP), "The index of such an object, or \\fBSIZE_MAX\\fR when there is none.",
         group="p2p")
    page("test_some" + vec, "find the objects of a set that satisfy a comparison",
         "Tests, without blocking, which selected objects compare to %s as \\fIcmp\\fR says, and "
         "stores their indices in \\fIindices\\fR.  %s  %s" % (against, _SET, _CMP),
         "The number of indices stored (0 when none satisfies it).", group="p2p")

# ---- collectives ---------------------------------------------------------------------
_TEAM = ("Every PE of \\fIteam\\fR must call it; PE numbers are relative to the team.  The "
         "buffers are symmetric.")
page("sync", "synchronize the PEs of a team", """
\\fBshmem_team_sync\\fR (and \\fBshmem_sync\\fR called with a team) returns on a PE when every PE
of \\fIteam\\fR has called it.  It does not complete outstanding RMA or atomics.  The deprecated
\\fBshmem_sync\\fR with an active set (\\fIPE_start\\fR, 2^\\fIlogPE_stride\\fR apart, \\fIPE_size\\fR
PEs, a symmetric \\fIpSync\\fR of \\fBSHMEM_BARRIER_SYNC_SIZE\\fR longs set to \\fBSHMEM_SYNC_VALUE\\fR)
does the same over those PEs.
""", COLL_RETURN + "  (The active-set form returns nothing.)", group="coll")
page("barrier_all", "complete all operations and synchronize all PEs", """
Completes every outstanding RMA and atomic operation of the calling PE on the default context
(as \\fBshmem_quiet\\fR(3)), then returns when every PE has called it.  The deprecated
\\fBshmem_barrier\\fR does the same over an active set (see \\fBshmem_sync\\fR(3)).
""", group="coll")
page("sync_all", "synchronize all PEs", """
Returns when every PE has called it, without completing outstanding RMA or atomics.
""", group="coll")
page("broadcast", "copy data from one PE to every PE of a team", """
Copies \\fInelems\\fR elements of \\fIsource\\fR on PE \\fIPE_root\\fR of \\fIteam\\fR to \\fIdest\\fR on
every PE of the team, the root included. """ + _TEAM, COLL_RETURN, group="coll")
page("collect", "concatenate blocks of varying size from every PE of a team", """
Each PE contributes \\fInelems\\fR elements (which may differ between PEs); \\fIdest\\fR on every
PE receives the contributions concatenated in PE order. """ + _TEAM, COLL_RETURN, group="coll")
page("fcollect", "concatenate equal blocks from every PE of a team", """
Each PE contributes \\fInelems\\fR elements (the same number on every PE); \\fIdest\\fR on every PE
receives the contributions concatenated in PE order. """ + _TEAM, COLL_RETURN, group="coll")
page("alltoall", "exchange a block between every pair of PEs of a team", """
Block \\fIj\\fR (\\fInelems\\fR elements) of \\fIsource\\fR on PE \\fIi\\fR goes to block \\fIi\\fR of
\\fIdest\\fR on PE \\fIj\\fR. """ + _TEAM, COLL_RETURN, group="coll")
page("alltoalls", "exchange strided blocks between every pair of PEs of a team", """
As \\fBshmem_alltoall\\fR(3), with the elements of each block \\fIsst\\fR elements apart in
\\fIsource\\fR and \\fIdst\\fR elements apart in \\fIdest\\fR. """ + _TEAM, COLL_RETURN, group="coll")
_OPS = {"and": "bitwise AND", "or": "bitwise OR", "xor": "bitwise exclusive OR", "max": "maximum",
        "min": "minimum", "sum": "sum", "prod": "product"}
for op, what in _OPS.items():
    page(op + "_reduce", "%s reduction over a team" % what,
         "Computes, element by element, the %s of the \\fInreduce\\fR elements of \\fIsource\\fR over "
         "every PE of \\fIteam\\fR and stores it in \\fIdest\\fR on every PE.  \\fIdest\\fR may be "
         "\\fIsource\\fR. %s" % (what, _TEAM), COLL_RETURN, group="coll")
    page(op + "_to_all", "%s reduction over an active set (deprecated)" % what,
         "Computes, element by element, the %s of the \\fInreduce\\fR elements of \\fIsource\\fR over "
         "the active set (\\fIPE_start\\fR, PEs 2^\\fIlogPE_stride\\fR apart, \\fIPE_size\\fR PEs) and "
         "stores it in \\fIdest\\fR on each of them.  \\fIpWrk\\fR is a symmetric work array of at least "
         "max(\\fInreduce\\fR/2 + 1, \\fBSHMEM_REDUCE_MIN_WRKDATA_SIZE\\fR) elements and \\fIpSync\\fR a "
         "symmetric array of \\fBSHMEM_REDUCE_SYNC_SIZE\\fR longs set to \\fBSHMEM_SYNC_VALUE\\fR.  Use "
         "\\fBshmem_%s_reduce\\fR(3) in new code." % (what, op), group="coll")
page("sum_inscan", "inclusive prefix sum over a team", """
Stores in \\fIdest\\fR on PE \\fIi\\fR of \\fIteam\\fR the element-wise sum of \\fIsource\\fR over
PEs 0 to \\fIi\\fR. """ + _TEAM, COLL_RETURN, group="coll")
page("sum_exscan", "exclusive prefix sum over a team", """
Stores in \\fIdest\\fR on PE \\fIi\\fR of \\fIteam\\fR the element-wise sum of \\fIsource\\fR over
PEs 0 to \\fIi\\fR\\-1.  PlugSHMEM stores zeros on PE 0. """ + _TEAM, COLL_RETURN, group="coll")

# ---- teams and contexts -------------------------------------------------------------------
page("team_my_pe", "the calling PE's number in a team", "",
     "The PE number in \\fIteam\\fR, or \\-1 when the caller is not a member or the team is "
     "\\fBSHMEM_TEAM_INVALID\\fR.", group="team")
page("team_n_pes", "the number of PEs of a team", "",
     "The number of PEs of \\fIteam\\fR, or \\-1 for \\fBSHMEM_TEAM_INVALID\\fR.", group="team")
page("team_get_config", "the configuration of a team", """
Stores in \\fIconfig\\fR the members of the team's configuration selected by \\fIconfig_mask\\fR
(\\fBSHMEM_TEAM_NUM_CONTEXTS\\fR).
""", COLL_RETURN, group="team")
page("team_translate_pe", "translate a PE number between teams", "",
     "The number in \\fIdest_team\\fR of PE \\fIsrc_pe\\fR of \\fIsrc_team\\fR, or \\-1 when it is not a "
     "member of \\fIdest_team\\fR or an argument is invalid.", group="team")
page("team_split_strided", "make a team of evenly spaced PEs of a parent team", """
Every PE of \\fIparent_team\\fR calls it; the new team has \\fIsize\\fR PEs, PE \\fIstart\\fR of the
parent and every \\fIstride\\fR-th one after it.  Members get the new team in \\fInew_team\\fR, the
other PEs \\fBSHMEM_TEAM_INVALID\\fR.  \\fIconfig\\fR and \\fIconfig_mask\\fR ask for a number of
contexts.
""", COLL_RETURN, group="team")
page("team_split_2d", "split a team into the rows and columns of a 2-D grid", """
Arranges the PEs of \\fIparent_team\\fR in rows of \\fIxrange\\fR PEs and makes, on every PE, the
team of its row (\\fIxaxis_team\\fR) and of its column (\\fIyaxis_team\\fR).  Every PE of the parent
calls it.
""", COLL_RETURN, group="team")
page("team_destroy", "destroy a team", """
Every member calls it.  The shareable contexts created on the team are destroyed with it;
contexts made with \\fBSHMEM_CTX_PRIVATE\\fR must be destroyed before.  The predefined teams
must not be destroyed.
""", group="team")
page("ctx_create", "create and destroy communication contexts", """
\\fBshmem_ctx_create\\fR makes a context on \\fBSHMEM_TEAM_WORLD\\fR: operations on it are ordered
and completed (\\fBshmem_ctx_quiet\\fR) separately from the other contexts.  \\fIoptions\\fR is 0
or a combination of \\fBSHMEM_CTX_SERIALIZED\\fR, \\fBSHMEM_CTX_PRIVATE\\fR and \\fBSHMEM_CTX_NOSTORE\\fR.
\\fBshmem_ctx_destroy\\fR completes the context's operations and frees it.
""", "\\fBshmem_ctx_create\\fR: 0 on success; otherwise nonzero and \\fI*ctx\\fR is "
     "\\fBSHMEM_CTX_INVALID\\fR.", group="team")
page("team_create_ctx", "create a communication context on a team", """
As \\fBshmem_ctx_create\\fR(3), on \\fIteam\\fR: PE numbers given to the context's operations are
relative to that team.
""", "0 on success; otherwise nonzero and \\fI*ctx\\fR is \\fBSHMEM_CTX_INVALID\\fR.", group="team")
page("ctx_get_team", "the team of a context", """
Stores in \\fIteam\\fR the team \\fIctx\\fR was created on (\\fBSHMEM_TEAM_WORLD\\fR for the default
context).
""", "0 on success, nonzero when \\fIctx\\fR is invalid.", group="team")
page("ctx_session_start", "hint that a context starts or ends a burst of operations", """
Sessions are hints: between \\fBshmem_ctx_session_start\\fR and \\fBshmem_ctx_session_stop\\fR the
program expects many small operations on \\fIctx\\fR.  PlugSHMEM accepts and ignores them; the
operations behave the same.
""", group="team")

# ---- setup, memory, ordering, locks ---------------------------------------------------------
page("init", "start the OpenSHMEM library", """
Every PE calls it before any other routine (except the queries that say so).  It finds the
other PEs through the launcher (\\fBoshrun\\fR(1), a PMIx or PMI-1 launcher), maps the
symmetric heap and global data, and chooses a transport.  The deprecated \\fBstart_pes\\fR
does the same (its argument is ignored).
""", group="setup")
page("init_thread", "start the library with a thread level", """
As \\fBshmem_init\\fR(3), asking for thread level \\fIrequested\\fR (\\fBSHMEM_THREAD_SINGLE\\fR,
\\fB_FUNNELED\\fR, \\fB_SERIALIZED\\fR or \\fB_MULTIPLE\\fR); the level granted is stored in
\\fIprovided\\fR.  \\fBshmem_query_thread\\fR returns the level granted.
""", "0 on success, nonzero otherwise.", group="setup")
page("finalize", "end the use of the library", """
Collective over all PEs: completes outstanding operations, synchronizes, and releases the
library's resources.
""", group="setup")
page("query_initialized", "whether the library is initialized", """
Stores 1 in \\fIinitialized\\fR between \\fBshmem_init\\fR and \\fBshmem_finalize\\fR, 0 otherwise.
May be called at any time.
""", group="setup")
page("my_pe", "the calling PE's number", "",
     "The number of the calling PE in \\fBSHMEM_TEAM_WORLD\\fR, from 0 to \\fBshmem_n_pes\\fR()\\-1.",
     group="setup")
page("n_pes", "the number of PEs", "", "The number of PEs of the program.", group="setup")
page("global_exit", "end every PE of the program", """
Ends the whole program: every PE exits, and the launcher exits with \\fIstatus\\fR.
""", "Does not return.", group="setup")
page("pe_accessible", "whether a PE can be reached", "",
     "1 when PE \\fIpe\\fR is part of the program and reachable by OpenSHMEM, 0 otherwise.", group="setup")
page("addr_accessible", "whether an address can be reached on a PE", "",
     "1 when \\fIaddr\\fR is symmetric (heap or global data) and reachable on PE \\fIpe\\fR, 0 otherwise.",
     group="setup")
page("ptr", "a local address of a remote object", """
Gives an address the calling PE can load from and store to directly to access \\fIdest\\fR on PE
\\fIpe\\fR.  PlugSHMEM gives one for the PEs of the same node, whose memory it maps, unless
\\fBSHMEM_BYPASS\\fR=0 (and for global data only with \\fBSHMEM_GLOBALS\\fR=map, the default).
""", "The address, or NULL when \\fIdest\\fR on \\fIpe\\fR cannot be accessed so.", group="setup")
page("team_ptr", "a local address of a remote object, by team PE number", """
As \\fBshmem_ptr\\fR(3), with \\fIpe\\fR a PE number of \\fIteam\\fR.
""", "The address, or NULL.", group="setup")
page("info_get_version", "the OpenSHMEM version implemented", """
Stores \\fBSHMEM_MAJOR_VERSION\\fR and \\fBSHMEM_MINOR_VERSION\\fR (1 and 6) in \\fImajor\\fR and
\\fIminor\\fR.
""", group="setup")
page("info_get_name", "the vendor string", """
Copies \\fBSHMEM_VENDOR_STRING\\fR (at most \\fBSHMEM_MAX_NAME_LEN\\fR bytes with its terminating
null) to \\fIname\\fR.
""", group="setup")
page("malloc", "allocate and free symmetric memory", """
Collective over all PEs, called with the same arguments on each.  \\fBshmem_malloc\\fR allocates
\\fIsize\\fR bytes of the symmetric heap, \\fBshmem_align\\fR with the given \\fIalignment\\fR (a power
of two), \\fBshmem_realloc\\fR resizes \\fIptr\\fR keeping its contents, \\fBshmem_free\\fR releases
it.  They synchronize all PEs, so a block is usable on every PE when the call returns.  The heap's size
is \\fBSHMEM_SYMMETRIC_SIZE\\fR (see \\fBshmem_info\\fR(1)).
""", "The address of the block, or NULL when \\fIsize\\fR is 0 or the heap has no room.",
     group="memory")
page("calloc", "allocate zeroed symmetric memory", """
As \\fBshmem_malloc\\fR(3) for \\fIcount\\fR elements of \\fIsize\\fR bytes, set to zero.
""", "The address, or NULL.", group="memory")
page("malloc_with_hints", "allocate symmetric memory with usage hints", """
As \\fBshmem_malloc\\fR(3); \\fIhints\\fR (\\fBSHMEM_MALLOC_ATOMICS_REMOTE\\fR,
\\fBSHMEM_MALLOC_SIGNAL_REMOTE\\fR or 0) say how the memory will be used.  PlugSHMEM allocates
the same memory whatever the hints.
""", "The address, or NULL.", group="memory")
page("fence", "order the delivery of operations to each PE", """
Puts, atomics and puts with signal issued on the context before the call are delivered to
each PE before those issued after it to the same PE.
""", group="order")
page("quiet", "complete outstanding operations", """
Returns when every put, nonblocking get, atomic and put with signal issued on the context
before the call is complete: written at its target, or read into its local buffer.
""", group="order")
page("pe_quiet", "complete outstanding operations to some PEs", """
As \\fBshmem_quiet\\fR(3), for the operations to the \\fInpes\\fR PEs listed in \\fItarget_pes\\fR.
""", group="order")
page("set_lock", "distributed mutual exclusion", """
\\fIlock\\fR is a symmetric long, 0 before first use, used by every PE that takes the lock.
\\fBshmem_set_lock\\fR blocks until the calling PE holds it; \\fBshmem_test_lock\\fR takes it only if
it is free; \\fBshmem_clear_lock\\fR completes the holder's operations (as \\fBshmem_quiet\\fR(3))
and releases it.
""", "\\fBshmem_test_lock\\fR: 0 when the lock was taken, 1 when it is held by another PE.",
     group="order")
page("pcontrol", "set the profiling level", """
For profiling tools that intercept it (the \\fBpshmem_\\fR names are the library's own entry
points).  The library itself does nothing with \\fIlevel\\fR.
""", group="order")
