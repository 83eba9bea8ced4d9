#!/usr/bin/env bash
# Status command of the cluster-generic profile: print running, success or failed for a job id
# of submit.sh. A job whose process is gone without an exit code (killed, e.g. SIGKILL) failed.
set -euo pipefail
dir=".snakemake/local-cluster/$1"
[[ -f "$dir/pid" ]] || { echo failed; exit 0; }
state() {
    if [[ -f "$dir/exitcode" ]]; then
        [[ "$(cat "$dir/exitcode")" == 0 ]] && echo success || echo failed
        return 0
    fi
    return 1
}
state && exit 0
if kill -0 "$(cat "$dir/pid")" 2> /dev/null; then
    echo running
else
    state || echo failed   # it may have finished between the two checks
fi
