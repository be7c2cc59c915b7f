#!/usr/bin/env bash
# Audit shell scripts for the problems described in ../SKILL.md.
#
# Usage: run.sh [-q] [-h] [FILE|DIR]...
#   With no arguments, audits every *.sh and *.bash file under the current
#   directory (skipping .git and node_modules).
#   -q  print only the summary line
#   A line ending in '# audit: ignore' is not checked by the pattern rules.
#
# Exit status: 0 no findings, 1 findings reported, 2 usage or I/O error.

set -euo pipefail

readonly PROG=${0##*/}
quiet=0
findings=0
files_checked=0

usage() {
    sed -n '2,11s/^# \{0,1\}//p' "$0"
}

report() {
    # report FILE LINE CODE MESSAGE
    findings=$((findings + 1))
    if [[ $quiet -eq 0 ]]; then
        printf '%s:%s: [%s] %s\n' "$1" "$2" "$3" "$4"
    fi
}

# grep_rule FILE CODE MESSAGE ERE: report every line matching ERE,
# ignoring comment-only lines and lines marked with '# audit: ignore'.
grep_rule() {
    local file=$1 code=$2 message=$3 pattern=$4 line_no
    while IFS=: read -r line_no _; do
        report "$file" "$line_no" "$code" "$message"
    done < <(grep -nE -- "$pattern" "$file" | grep -vE '^[0-9]+:[[:space:]]*#|# audit: ignore' || true)
}

audit_file() {
    local file=$1 first_line interpreter
    if [[ ! -r $file ]]; then
        printf '%s: cannot read %s\n' "$PROG" "$file" >&2
        return 2
    fi
    files_checked=$((files_checked + 1))

    IFS= read -r first_line < "$file" || first_line=''
    case $first_line in
        '#!'*bash*) interpreter=bash ;;
        '#!'*sh*) interpreter=sh ;;
        *)
            report "$file" 1 SH001 "no shebang; add '#!/usr/bin/env bash'"
            interpreter=bash
            ;;
    esac

    if [[ $interpreter == bash ]] && ! bash -n -- "$file" 2>/dev/null; then
        report "$file" 1 SH002 "syntax error (run: bash -n '$file')"
    fi

    if ! grep -qE '^[[:space:]]*set -[a-z]*e[a-z]*([[:space:]]|$)|set -o errexit' "$file"; then
        report "$file" 1 SH003 "no 'set -euo pipefail' (or set -o errexit)"
    fi
    if [[ $interpreter == bash ]] && ! grep -qE 'set -[a-z]*o pipefail|set -o pipefail|set -euo pipefail' "$file"; then
        report "$file" 1 SH004 "pipeline failures are ignored; add 'set -o pipefail'"
    fi

    grep_rule "$file" SH010 'unquoted $@ splits arguments; use "$@"' '(^|[^"])\$@'  # audit: ignore
    grep_rule "$file" SH011 'backticks; use $(...)' '`[^`]*`'  # audit: ignore
    grep_rule "$file" SH012 'rm -rf on an unquoted variable' 'rm -[a-zA-Z]*r[a-zA-Z]*f?[[:space:]]+\$'
    grep_rule "$file" SH013 'eval runs arbitrary text; avoid it' '(^|[;&|[:space:]])eval[[:space:]]'
    grep_rule "$file" SH014 'cd without a failure check; use cd DIR || exit' '(^|[;&[:space:]])cd[[:space:]][^|&]*$'
    grep_rule "$file" SH015 'curl piped into a shell' 'curl[^|]*\|[[:space:]]*(sudo[[:space:]]+)?(ba)?sh'
    grep_rule "$file" SH016 'fixed /tmp path; use mktemp' '/tmp/[A-Za-z0-9_.-]+'

    if command -v shellcheck >/dev/null 2>&1; then
        local sc_output
        sc_output=$(shellcheck -f gcc -- "$file" || true)
        if [[ -n $sc_output ]]; then
            while IFS= read -r line; do
                findings=$((findings + 1))
                [[ $quiet -eq 1 ]] || printf '%s\n' "$line"
            done <<< "$sc_output"
        fi
    fi
    return 0
}

main() {
    local opt
    while getopts ':qh' opt; do
        case $opt in
            q) quiet=1 ;;
            h) usage; exit 0 ;;
            *) printf '%s: unknown option -%s\n' "$PROG" "$OPTARG" >&2; usage >&2; exit 2 ;;
        esac
    done
    shift $((OPTIND - 1))

    local -a targets=()
    if [[ $# -eq 0 ]]; then
        set -- .
    fi
    local arg path
    for arg in "$@"; do
        if [[ -d $arg ]]; then
            while IFS= read -r -d '' path; do
                targets+=("$path")
            done < <(find "$arg" \( -name .git -o -name node_modules \) -prune \
                        -o -type f \( -name '*.sh' -o -name '*.bash' \) -print0)
        elif [[ -e $arg ]]; then
            targets+=("$arg")
        else
            printf '%s: no such file or directory: %s\n' "$PROG" "$arg" >&2
            exit 2
        fi
    done

    if [[ ${#targets[@]} -eq 0 ]]; then
        printf '%s: no shell scripts found\n' "$PROG" >&2
        exit 0
    fi

    local target status=0
    for target in "${targets[@]}"; do
        audit_file "$target" || status=2
    done

    printf '%d finding(s) in %d file(s)\n' "$findings" "$files_checked"
    if [[ $status -ne 0 ]]; then
        exit "$status"
    fi
    [[ $findings -eq 0 ]]
}

main "$@"
