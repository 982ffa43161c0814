# triage sandbox confinement: the worker's file-system view and its seccomp
# filters (see doc.go, "Confinement").
#
# Loaded by worker.py into a private namespace. Everything here runs in the
# worker as root inside its own mount namespace, before any run.
#
#   build_root: a new root made of a small tmpfs and read-only bind mounts of
#   what the Python installation and pytest need (the interpreter binary, the
#   standard library with its native modules minus the test and memory-access
#   ones, the packages pytest imported, the system libraries), device nodes
#   null/zero/full/random/urandom, an /etc with ld.so.cache, passwd and
#   localtime, and the run folder (a private tmpfs, no exec, /tmp points to
#   it). pivot_root moves the worker into it and the host's tree is detached:
#   no /proc, /sys, /home, /root, /tmp or /work of the host, no task files, no
#   repository, no triage binary.
#
#   seccomp_filter / install_filter: classic BPF programs for
#   prctl(PR_SET_SECCOMP). The worker's filter (inherited by every run)
#   refuses with EPERM what the sandbox never needs: ptrace and
#   process_vm_*, bpf, perf_event_open, userfaultfd, io_uring, mount and the
#   new mount API, pivot_root, chroot, unshare, setns, clone with any
#   namespace flag (clone3 gets ENOSYS so the C library falls back to clone,
#   whose flags a filter can read), keyctl/add_key/request_key, module and
#   kexec loading, reboot, swap, accounting, quotas, syslog, iopl/ioperm,
#   personality, handle-based opens, clock setting; any other architecture
#   (i386 or x32 entry points) kills the process. A run's child adds a second
#   filter after its own set-up: no new signal handlers (a handler receives
#   the interrupted frame, which would hand the harness's frames to the
#   program without any audit event). no_new_privs is set first.
import os
import struct

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
SYS_PIVOT_ROOT = 155

# Work folder inside the new root.
SANDBOX_WORK = "/sandbox"

# lib-dynload modules left out of the view: CPython's test modules (several
# write arbitrary memory) and the ctypes back end.
DYNLOAD_DENY = ("_test", "_xx", "_ctypes")


class Mounter:
    def __init__(self):
        import ctypes

        self.libc = ctypes.CDLL(None, use_errno=True)
        self.ctypes = ctypes

    def mount(self, src, target, fstype, flags, data=None):
        enc = lambda s: None if s is None else s.encode()
        if self.libc.mount(enc(src), enc(target), enc(fstype), self.ctypes.c_ulong(flags), enc(data)) != 0:
            e = self.ctypes.get_errno()
            raise OSError(e, "mount %s: %s" % (target, os.strerror(e)))

    def bind_ro(self, src, target, extra=0):
        self.mount(src, target, None, MS_BIND)
        self.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | extra)

    def umount(self, target):
        if self.libc.umount2(target.encode(), MNT_DETACH) != 0:
            e = self.ctypes.get_errno()
            raise OSError(e, "umount %s: %s" % (target, os.strerror(e)))

    def pivot_root(self, new, old):
        if self.libc.syscall(SYS_PIVOT_ROOT, new.encode(), old.encode()) != 0:
            e = self.ctypes.get_errno()
            raise OSError(e, "pivot_root: %s" % os.strerror(e))


def _mkpoint(root, path, is_dir):
    dst = root + path
    if is_dir:
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            with open(dst, "w"):
                pass
    return dst


def view_entries(modules, extra_files=()):
    """The host paths the new root shows: (path, is_dir) pairs, plus the
    lib-dynload folder to filter. modules is sys.modules after pytest has been
    imported and run once: each module loaded from a site-packages folder
    brings its top-level package or file."""
    import sys
    import sysconfig

    paths = sysconfig.get_paths()
    stdlib = os.path.realpath(paths["stdlib"])
    entries = {stdlib: True}
    dynload = os.path.join(stdlib, "lib-dynload")
    sites = set()
    for key in ("purelib", "platlib"):
        sites.add(os.path.realpath(paths[key]))
    try:
        import site

        for s in site.getsitepackages():
            sites.add(os.path.realpath(s))
    except Exception:  # noqa: BLE001 - site may be disabled
        pass
    for p in sys.path:
        if p.endswith("-packages"):
            sites.add(os.path.realpath(p))
    for mod in list(modules.values()):
        f = getattr(mod, "__file__", None)
        if not f:
            continue
        f = os.path.realpath(f)
        for s in sites:
            if f.startswith(s + "/"):
                top = f[len(s) + 1:].split("/", 1)[0]
                entries[os.path.join(s, top)] = os.path.isdir(os.path.join(s, top))
    exe = os.path.realpath(sys.executable)
    entries[exe] = False
    libdir = sysconfig.get_config_var("LIBDIR") or "/usr/lib"
    multiarch = sysconfig.get_config_var("MULTIARCH")
    for d in (os.path.join(libdir), os.path.join("/usr/lib", multiarch or ""), os.path.join("/lib", multiarch or ""), "/usr/lib64", "/lib64"):
        d = os.path.realpath(d)
        if os.path.isdir(d) and d not in ("/usr/lib", "/lib", "/usr", "/"):
            entries[d] = True
    for f in ("/etc/ld.so.cache", "/etc/localtime") + tuple(extra_files):
        if os.path.exists(f):
            entries[os.path.realpath(f)] = False
    return entries, dynload, sites, stdlib


def build_root(root, entries, dynload, work_opts, uid):
    """Assemble the new root at root (an existing empty folder of the
    worker's private mount namespace), pivot into it and detach the host's
    tree. Returns the work folder inside the new root."""
    m = Mounter()
    m.mount(None, "/", None, MS_REC | MS_PRIVATE)
    m.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for path in sorted(entries):
        is_dir = entries[path]
        dst = _mkpoint(root, path, is_dir)
        m.bind_ro(path, dst)
    # Native modules of the standard library, minus the deny list.
    ddst = root + dynload
    if os.path.isdir(ddst):
        m.mount("tmpfs", ddst, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
        for name in sorted(os.listdir(dynload)):
            if name.startswith(DYNLOAD_DENY):
                continue
            src = os.path.join(dynload, name)
            if os.path.isfile(src):
                m.bind_ro(src, _mkpoint(root, src, False))
        m.mount(None, ddst, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
    # Symlinks of a merged /usr and the interpreter's usual names.
    for link, target in (("/bin", "usr/bin"), ("/lib", "usr/lib"), ("/lib64", "usr/lib64")):
        if os.path.islink(link) and not os.path.lexists(root + link):
            os.symlink(target, root + link)
    import sys

    exe = os.path.realpath(sys.executable)
    for name in {sys.executable, "/usr/bin/python3"}:
        if name != exe and not os.path.lexists(root + name):
            os.makedirs(os.path.dirname(root + name), exist_ok=True)
            os.symlink(exe, root + name)
    # /etc: the bound files plus a passwd naming the run's user.
    os.makedirs(root + "/etc", exist_ok=True)
    with open(root + "/etc/passwd", "w") as f:
        f.write("root:x:0:0:root:/:/nonexistent\n")
        if uid >= 0:
            f.write("sandbox:x:%d:%d:sandbox:%s:/nonexistent\n" % (uid, uid, SANDBOX_WORK))
    # /dev: a few character devices.
    os.makedirs(root + "/dev", exist_ok=True)
    m.mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=16k,mode=0755")
    for dev in ("null", "zero", "full", "random", "urandom"):
        src = "/dev/" + dev
        if os.path.exists(src):
            dst = _mkpoint(root, src, False)
            m.mount(src, dst, None, MS_BIND)
    m.mount(None, root + "/dev", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, "size=16k,mode=0755")
    # The run folder: private, size-capped, no executables, /tmp points to it.
    os.makedirs(root + SANDBOX_WORK, exist_ok=True)
    m.mount("tmpfs", root + SANDBOX_WORK, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, work_opts)
    os.symlink(SANDBOX_WORK.lstrip("/"), root + "/tmp")
    old = root + "/.old"
    os.makedirs(old, exist_ok=True)
    m.pivot_root(root, old)
    os.chdir("/")
    m.umount("/.old")
    os.rmdir("/.old")
    m.mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    os.chdir(SANDBOX_WORK)
    return SANDBOX_WORK


# ---------------------------------------------------------------- seccomp

AUDIT_ARCH_X86_64 = 0xC000003E
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
EPERM, ENOSYS = 1, 38
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
BPF_LD_W_ABS, BPF_JEQ, BPF_JGE, BPF_JSET, BPF_RET = 0x20, 0x15, 0x35, 0x45, 0x06
X32_BIT = 0x40000000
NR_CLONE, NR_CLONE3, NR_RT_SIGACTION = 56, 435, 13
# CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
CLONE_NS_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

# x86-64 system call numbers refused with EPERM.
DENY_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438, "kcmp": 312,
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "move_mount": 429, "open_tree": 428,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "unshare": 272, "setns": 308,
    "keyctl": 250, "add_key": 248, "request_key": 249,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
    "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "quotactl": 179, "quotactl_fd": 443,
    "syslog": 103, "iopl": 172, "ioperm": 173, "personality": 135, "uselib": 134,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "lookup_dcookie": 212, "fanotify_init": 300,
    "settimeofday": 164, "clock_settime": 227, "adjtimex": 159, "clock_adjtime": 305, "vhangup": 153,
}


def _ins(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _arch_check():
    return [
        _ins(BPF_LD_W_ABS, 4),
        _ins(BPF_JEQ, AUDIT_ARCH_X86_64, 1, 0),
        _ins(BPF_RET, SECCOMP_RET_KILL_PROCESS),
        _ins(BPF_LD_W_ABS, 0),
    ]


def seccomp_filter():
    """The worker's filter (see the file comment)."""
    prog = _arch_check()
    prog += [_ins(BPF_JGE, X32_BIT, 0, 1), _ins(BPF_RET, SECCOMP_RET_ERRNO | EPERM)]
    for nr in sorted(DENY_X86_64.values()):
        prog += [_ins(BPF_JEQ, nr, 0, 1), _ins(BPF_RET, SECCOMP_RET_ERRNO | EPERM)]
    prog += [_ins(BPF_JEQ, NR_CLONE3, 0, 1), _ins(BPF_RET, SECCOMP_RET_ERRNO | ENOSYS)]
    # clone: refuse any namespace flag (args[0], low 32 bits at offset 16).
    prog += [
        _ins(BPF_JEQ, NR_CLONE, 0, 3),
        _ins(BPF_LD_W_ABS, 16),
        _ins(BPF_JSET, CLONE_NS_FLAGS, 0, 1),
        _ins(BPF_RET, SECCOMP_RET_ERRNO | EPERM),
        _ins(BPF_RET, SECCOMP_RET_ALLOW),
    ]
    return prog


def no_signal_handlers_filter():
    """A run's second filter: rt_sigaction may read a disposition but not set
    one (args[1], the new action, must be NULL)."""
    prog = _arch_check()
    prog += [
        _ins(BPF_JEQ, NR_RT_SIGACTION, 0, 5),
        _ins(BPF_LD_W_ABS, 24),
        _ins(BPF_JEQ, 0, 0, 2),
        _ins(BPF_LD_W_ABS, 28),
        _ins(BPF_JEQ, 0, 1, 0),
        _ins(BPF_RET, SECCOMP_RET_ERRNO | EPERM),
        _ins(BPF_RET, SECCOMP_RET_ALLOW),
    ]
    return prog


def seccomp_supported():
    import platform

    return platform.machine() in ("x86_64", "AMD64")


class FilterInstaller:
    """Installs filters with prctl; built before the run so a child's install
    is two system calls."""

    def __init__(self):
        import ctypes

        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        self.libc = ctypes.CDLL(None, use_errno=True)
        self.ctypes = ctypes
        self.SockFprog = SockFprog
        self.prctl = self.libc.prctl
        self.keep = []

    def prepare(self, prog):
        buf = self.ctypes.create_string_buffer(b"".join(prog))
        fprog = self.SockFprog(len(prog), self.ctypes.addressof(buf))
        self.keep.append((buf, fprog))
        return self.ctypes.addressof(fprog)

    def install(self, fprog_addr):
        c = self.ctypes
        if self.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            e = c.get_errno()
            raise OSError(e, "prctl(PR_SET_NO_NEW_PRIVS): %s" % os.strerror(e))
        if self.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, c.c_void_p(fprog_addr), 0, 0) != 0:
            e = c.get_errno()
            raise OSError(e, "prctl(PR_SET_SECCOMP): %s" % os.strerror(e))
