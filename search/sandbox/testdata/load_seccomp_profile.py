# Installs a Kubernetes/OCI seccomp profile (JSON: defaultAction,
# defaultErrnoRet, architectures, syscalls with names, action, errnoRet and
# args) on this process with libseccomp (Debian's python3-seccomp), then
# executes the command after "--" under it, as a container runtime does for
# a pod's Localhost profile. Run as root: the filter goes in without
# no_new_privs, so the command can still drop to an account and run the
# set-user-ID newuidmap. Used by TestUnprivilegedSandbox.
#
#   python3 load_seccomp_profile.py PROFILE.json -- COMMAND ARGS...
import json
import os
import sys

import seccomp

ACTIONS = {"SCMP_ACT_ALLOW": lambda r: seccomp.ALLOW, "SCMP_ACT_ERRNO": lambda r: seccomp.ERRNO(r.get("errnoRet", 1)),
           "SCMP_ACT_KILL": lambda r: seccomp.KILL, "SCMP_ACT_KILL_PROCESS": lambda r: seccomp.KILL_PROCESS}
OPS = {"SCMP_CMP_NE": seccomp.NE, "SCMP_CMP_EQ": seccomp.EQ, "SCMP_CMP_LT": seccomp.LT, "SCMP_CMP_LE": seccomp.LE,
       "SCMP_CMP_GT": seccomp.GT, "SCMP_CMP_GE": seccomp.GE, "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ}
ARCHES = {"SCMP_ARCH_X86_64": seccomp.Arch.X86_64, "SCMP_ARCH_AARCH64": seccomp.Arch.AARCH64}


def main():
    path, sep, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sep != "--" or not cmd:
        sys.exit("usage: load_seccomp_profile.py PROFILE.json -- COMMAND ARGS...")
    with open(path) as f:
        prof = json.load(f)
    f = seccomp.SyscallFilter(defaction=ACTIONS[prof["defaultAction"]]({"errnoRet": prof.get("defaultErrnoRet", 1)}))
    f.set_attr(seccomp.Attr.CTL_NNP, 0)
    for a in prof.get("architectures", []):
        if not f.exist_arch(ARCHES[a]):
            f.add_arch(ARCHES[a])
    unknown = []
    for rule in prof["syscalls"]:
        action = ACTIONS[rule["action"]](rule)
        args = [seccomp.Arg(a["index"], OPS[a["op"]], a["value"], *([a["valueTwo"]] if "valueTwo" in a else []))
                for a in rule.get("args", [])]
        for name in rule["names"]:
            try:
                f.add_rule(action, name, *args)
            except (RuntimeError, ValueError):
                unknown.append(name)  # not a syscall of this architecture
    if unknown:
        print("seccomp profile: not syscalls here: %s" % " ".join(unknown), file=sys.stderr)
    f.load()
    os.execv(cmd[0], cmd)


main()
