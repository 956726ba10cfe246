# Sourced by the guest tiers (guest.sh, ../cluster/driver.sh):
#   step NAME FUNCTION [ARGS...]
# runs one step, prints "==== NAME: PASS|FAIL (N s)" and adds a failed step to
# $failed. With $steps set (a comma-separated list), a step not in it is skipped.
failed=""
step() {
    name=$1
    shift
    case ",${steps:-$name}," in *",$name,"*) ;; *) return 0 ;; esac
    t0=$(date +%s)
    echo "==== $name"
    if "$@"; then
        echo "==== $name: PASS ($(($(date +%s) - t0)) s)"
    else
        echo "==== $name: FAIL ($(($(date +%s) - t0)) s)"
        failed="$failed $name"
    fi
}
