#!/bin/sh
# singleton.sh -n N PROGRAM [ARGS...]: PROGRAM alone, no launcher (N is
# ignored), for bad-input tests whose one line must not be followed by a
# launcher's own report.
shift 2
exec "$@"
