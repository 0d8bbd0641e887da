#!/usr/bin/env python3
"""Writes the hwloc 2.x XML topologies of lab 04 (servers the lab's tests plan for) from the
published shape of each machine, then lets hwloc itself re-export them so that every file is
exactly what `lstopo --of xml` writes. Run from this folder: python3 make_topologies.py"""
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
GiB = 1 << 30


def bitmap(bits):
    """hwloc's text form of a set of indexes: 32-bit hex words, most significant first."""
    words = [0] * (max(bits) // 32 + 1 if bits else 1)
    for b in bits:
        words[b // 32] |= 1 << (b % 32)
    return ",".join(f"0x{w:08x}" for w in reversed(words))


class Obj:
    def __init__(self, type_, os_index=None, **attrs):
        self.type, self.os_index, self.attrs = type_, os_index, attrs
        self.infos, self.memory, self.children, self.io = [], [], [], []

    def pus(self):
        if self.type == "PU":
            return {self.os_index}
        return set().union(*(c.pus() for c in self.children)) if self.children else set()

    def nodes(self, pu_node):
        return {pu_node[p] for p in self.pus()}


def pu(i):
    return Obj("PU", i)


def core(i, pu_ids, caches):
    """A core with its private caches: caches = [(type, size, ways, depth, cache_type)]."""
    c = Obj("Core", i)
    c.children = [pu(p) for p in pu_ids]
    for type_, size, ways, depth, ctype in reversed(caches):
        parent = Obj(type_, i, cache_size=size, depth=depth, cache_linesize=64,
                     cache_associativity=ways, cache_type=ctype)
        parent.children = [c]
        c = parent
    return c


PRIVATE_SPR = [("L2Cache", 2 * 1024 * 1024, 16, 2, 0), ("L1Cache", 48 * 1024, 12, 1, 1),
               ("L1iCache", 32 * 1024, 8, 1, 2)]
PRIVATE_ZEN4 = [("L2Cache", 1024 * 1024, 8, 2, 0), ("L1Cache", 32 * 1024, 8, 1, 1),
                ("L1iCache", 32 * 1024, 8, 1, 2)]


def numa(i, mem):
    n = Obj("NUMANode", i, local_memory=mem)
    n.pages = mem // 4096
    return n


def l3(i, size, ways, kids):
    o = Obj("L3Cache", i, cache_size=size, depth=3, cache_linesize=64, cache_associativity=ways,
            cache_type=0)
    o.children = kids
    return o


def host_bridge(lo, hi, kids):
    o = Obj("Bridge", bridge_type="0-1", depth=0, bridge_pci=f"0000:[{lo:02x}-{hi:02x}]")
    o.io = kids
    return o


def pci_bridge(bus, lo, hi, ids, kids, depth=1):
    o = Obj("Bridge", bridge_type="1-1", depth=depth, bridge_pci=f"0000:[{lo:02x}-{hi:02x}]",
            pci_busid=f"0000:{bus}", pci_type=f"0604 {ids}", pci_link_speed="63.015385")
    o.io = kids
    return o


def pcidev(busid, cls, ids, speed, osdevs=()):
    o = Obj("PCIDev", pci_busid=f"0000:{busid}", pci_type=f"{cls} {ids}", pci_link_speed=speed)
    o.io = list(osdevs)
    return o


def osdev(name, kind, **infos):
    o = Obj("OSDev", name=name, osdev_type=kind)  # 0 block, 1 gpu, 2 net, 3 openfabrics, 5 coproc
    o.infos = list(infos.items())
    return o


def nvidia_osdevs(k, model, mem_kb):
    return [osdev(f"nvml{k}", 1, Backend="NVML", GPUVendor="NVIDIA Corporation", GPUModel=model),
            osdev(f"cuda{k}", 5, CoProcType="CUDA", Backend="CUDA", GPUVendor="NVIDIA Corporation",
                  GPUModel=model, CUDAGlobalMemorySize=str(mem_kb))]


def emit(o, parent_el, pu_node):
    el = ET.SubElement(parent_el, "object", type=o.type)
    if o.os_index is not None:
        el.set("os_index", str(o.os_index))
    if o.type not in ("Bridge", "PCIDev", "OSDev"):
        cpus = o.pus() if o.type != "NUMANode" else {p for p, n in pu_node.items()
                                                      if n == o.os_index}
        nodes = {o.os_index} if o.type == "NUMANode" else {pu_node[p] for p in cpus}
        for key in ("cpuset", "complete_cpuset"):
            el.set(key, bitmap(cpus))
        if o.type == "Machine":
            el.set("allowed_cpuset", bitmap(cpus))
        for key in ("nodeset", "complete_nodeset"):
            el.set(key, bitmap(nodes))
        if o.type == "Machine":
            el.set("allowed_nodeset", bitmap(nodes))
    for k, v in o.attrs.items():
        el.set(k, str(v))
    for k, v in o.infos:
        ET.SubElement(el, "info", name=k, value=str(v))
    if o.type == "NUMANode":
        ET.SubElement(el, "page_type", size="4096", count=str(o.pages))
        ET.SubElement(el, "page_type", size="2097152", count="0")
        ET.SubElement(el, "page_type", size="1073741824", count="0")
    for c in o.memory + o.children + o.io:
        emit(c, el, pu_node)


def write(name, machine, pu_node, distances=None):
    root = ET.Element("topology", version="2.0")
    emit(machine, root, pu_node)
    if distances:
        n = len(distances)
        idx = "".join(f"{i} " for i in range(n))
        vals = "".join(f"{v} " for row in distances for v in row)
        d = ET.SubElement(root, "distances2", type="NUMANode", nbobjs=str(n), kind="5",
                          name="NUMALatency", indexing="os")
        ET.SubElement(d, "indexes", length=str(len(idx))).text = idx
        ET.SubElement(d, "u64values", length=str(len(vals))).text = vals
    raw = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n' +
           ET.tostring(root, encoding="unicode"))
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(raw)
    out = os.path.join(HERE, name)
    subprocess.run(["lstopo-no-graphics", "--input", f.name, "--of", "xml", "-f", out], check=True)
    os.unlink(f.name)
    print("wrote", out)


def machine(host, infos=()):
    m = Obj("Machine", 0)
    m.infos = [("Backend", "Linux"), ("OSName", "Linux"), ("Architecture", "x86_64"),
               ("HostName", host), *infos]
    return m


def two_socket_8gpu():
    """2 x Xeon Platinum 8480C (56 cores, 2 threads each, one NUMA node per socket), 8 H100 SXM
    GPUs, 4 per socket, each behind a PCIe switch shared with a ConnectX-7 NIC."""
    m = machine("gpu-server-2s8g", [("OSRelease", "5.15.0-1042-nvidia")])
    gpu_bus = [[0x1b, 0x43, 0x52, 0x61], [0x9d, 0xc3, 0xd1, 0xdf]]
    pu_node, k = {}, 0
    for s in range(2):
        cores = [core(s * 56 + i, [s * 56 + i, 112 + s * 56 + i], PRIVATE_SPR) for i in range(56)]
        for c in cores:
            for p in c.pus():
                pu_node[p] = s
        pkg = Obj("Package", s)
        pkg.infos = [("CPUVendor", "GenuineIntel"), ("CPUFamilyNumber", 6),
                     ("CPUModelNumber", 143), ("CPUModel", "Intel(R) Xeon(R) Platinum 8480C"),
                     ("CPUStepping", 8)]
        pkg.memory = [numa(s, 1024 * GiB)]
        pkg.children = [l3(s, 105 * 1024 * 1024, 15, cores)]
        if s == 0:
            vga = pcidev("03:00.0", "0300", "[1a03:2000] [1a03:2000] 52", "0.250000",
                         [osdev("card0", 1)])
            pkg.io.append(host_bridge(0x00, 0x03, [pci_bridge("02:00.0", 0x03, 0x03,
                                                              "[1a03:1150] [1a03:1150] 06", [vga])]))
        else:
            nvme = [pcidev(f"{b:02x}:00.0", "0108", "[144d:a824] [144d:a809] 00", "15.753846",
                           [osdev(f"nvme{i}n1", 0)]) for i, b in enumerate((0xa1, 0xa2))]
            pkg.io.append(host_bridge(0xa0, 0xa2, nvme))
        for g in gpu_bus[s]:
            n = g - 3
            gpu = pcidev(f"{g:02x}:00.0", "0302", "[10de:2330] [10de:16c1] a1", "63.015385",
                         nvidia_osdevs(k, "NVIDIA H100 80GB HBM3", 81559 * 1024))
            nic = pcidev(f"{n:02x}:00.0", "0207", "[15b3:1021] [15b3:0041] 00", "63.015385",
                         [osdev(f"mlx5_{k}", 3), osdev(f"ibp{n}s0", 2)])
            down = [pci_bridge(f"{n - 2:02x}:00.0", n, n, "[1000:c030] [1000:100b] b0", [nic], 2),
                    pci_bridge(f"{n - 2:02x}:01.0", g, g, "[1000:c030] [1000:100b] b0", [gpu], 2)]
            up = pci_bridge(f"{n - 3:02x}:00.0", n - 2, g, "[1000:c030] [1000:100b] b0", down)
            pkg.io.append(host_bridge(n - 3, g, [up]))
            k += 1
        pkg.io.sort(key=lambda b: b.attrs["bridge_pci"])  # host bridges in bus order
        m.children.append(pkg)
    write("two-socket-8gpu.xml", m, pu_node, [[10, 21], [21, 10]])


def epyc_nps4():
    """1 x AMD EPYC 9654 (96 cores in 12 CCDs of 8, 2 threads each) in NPS4: 4 NUMA nodes of 3
    CCDs; 4 AMD Instinct MI210 GPUs: two on node 1, one on node 2, one on node 3."""
    m = machine("gpu-server-nps4", [("OSRelease", "6.5.0-35-generic")])
    pkg = Obj("Package", 0)
    pkg.infos = [("CPUVendor", "AuthenticAMD"), ("CPUFamilyNumber", 25), ("CPUModelNumber", 17),
                 ("CPUModel", "AMD EPYC 9654 96-Core Processor"), ("CPUStepping", 1)]
    pu_node, k = {}, 0
    io = {0: [host_bridge(0x00, 0x02, [pci_bridge("01:00.0", 0x02, 0x02,
                                                   "[1a03:1150] [1a03:1150] 06",
                                                   [pcidev("02:00.0", "0300",
                                                           "[1a03:2000] [1a03:2000] 52",
                                                           "0.250000", [osdev("card0", 1)])])]),
              host_bridge(0x20, 0x21, [pcidev("21:00.0", "0108", "[144d:a824] [144d:a809] 00",
                                              "15.753846", [osdev("nvme0n1", 0)])])],
          1: [], 2: [], 3: []}
    for node, bus in ((1, 0x43), (1, 0x63), (2, 0x83), (3, 0xc3)):
        gpu = pcidev(f"{bus:02x}:00.0", "0380", "[1002:740f] [1002:0c34] 02", "31.507692",
                     [osdev(f"card{k + 1}", 1), osdev(f"rsmi{k}", 1, Backend="RSMI",
                                                      GPUVendor="AMD",
                                                      GPUModel="AMD Instinct MI210")])
        io[node].append(host_bridge(bus - 3, bus, [gpu]))
        k += 1
    for node, bus in ((2, 0xa1), (3, 0xe1)):
        nic = pcidev(f"{bus:02x}:00.0", "0207", "[15b3:101b] [15b3:0007] 00", "31.507692",
                     [osdev(f"mlx5_{node - 2}", 3)])
        io[node].append(host_bridge(bus - 1, bus, [nic]))
    for n in range(4):
        group = Obj("Group", kind=1001, subkind=0)
        group.memory = [numa(n, 192 * GiB)]
        for ccd in range(3 * n, 3 * n + 3):
            cores = [core(c, [c, 96 + c], PRIVATE_ZEN4) for c in range(8 * ccd, 8 * ccd + 8)]
            for c in cores:
                for p in c.pus():
                    pu_node[p] = n
            group.children.append(l3(ccd, 32 * 1024 * 1024, 16, cores))
        group.io = io[n]
        pkg.children.append(group)
    m.children = [pkg]
    write("epyc-nps4-4gpu.xml", m, pu_node,
          [[10 if i == j else 12 for j in range(4)] for i in range(4)])


def laptop():
    """A laptop: Ryzen 7 7840HS (8 cores, 2 threads each, one NUMA node), its integrated Radeon
    780M and a GeForce RTX 4060 Laptop GPU."""
    m = machine("laptop", [("OSRelease", "6.8.0-45-generic")])
    pkg = Obj("Package", 0)
    pkg.infos = [("CPUVendor", "AuthenticAMD"), ("CPUFamilyNumber", 25), ("CPUModelNumber", 116),
                 ("CPUModel", "AMD Ryzen 7 7840HS w/ Radeon 780M Graphics"), ("CPUStepping", 1)]
    pkg.memory = [numa(0, 32 * GiB)]
    cores = [core(c, [c, 8 + c], PRIVATE_ZEN4) for c in range(8)]
    pkg.children = [l3(0, 16 * 1024 * 1024, 16, cores)]
    pu_node = {p: 0 for p in range(16)}
    dgpu = pcidev("01:00.0", "0300", "[10de:28e0] [17aa:3c3c] a1", "15.753846",
                  nvidia_osdevs(0, "NVIDIA GeForce RTX 4060 Laptop GPU", 8188 * 1024))
    nvme = pcidev("02:00.0", "0108", "[144d:a80c] [144d:a801] 00", "7.876923",
                  [osdev("nvme0n1", 0)])
    wifi = pcidev("03:00.0", "0280", "[14c3:0616] [14c3:e616] 00", "0.250000",
                  [osdev("wlp3s0", 2)])
    igpu = pcidev("c4:00.0", "0300", "[1002:15bf] [17aa:3c3c] c2", "7.876923",
                  [osdev("card1", 1)])
    m.children = [pkg]
    m.io = [host_bridge(0x00, 0x03,
                        [pci_bridge(f"00:0{i + 1}.1", b, b, "[1022:14ee] [0000:0000] 00", [d])
                         for i, (b, d) in enumerate(((1, dgpu), (2, nvme), (3, wifi)))]),
            host_bridge(0xc4, 0xc4, [igpu])]
    write("laptop-1node.xml", m, pu_node)


def cloud_vm():
    """A cloud VM: 2 virtual sockets of 6 cores x 2 threads, one NUMA node each, 2 A100 GPUs
    passed through on the VM's root bus. The hypervisor does not say which node the GPUs are
    near (sysfs numa_node = -1), so hwloc attaches them to the whole machine."""
    m = machine("cloud-vm-2g", [("OSRelease", "6.1.0-21-cloud-amd64")])
    pu_node = {}
    for s in range(2):
        pkg = Obj("Package", s)
        pkg.infos = [("CPUVendor", "GenuineIntel"), ("CPUFamilyNumber", 6),
                     ("CPUModelNumber", 85), ("CPUModel", "Intel(R) Xeon(R) CPU @ 2.20GHz")]
        pkg.memory = [numa(s, 85 * GiB)]
        cores = []
        for c in range(6 * s, 6 * s + 6):
            cores.append(core(c, [2 * c, 2 * c + 1], PRIVATE_SPR))
            pu_node[2 * c] = pu_node[2 * c + 1] = s
        pkg.children = [l3(s, 38 * 1024 * 1024 + 512 * 1024, 11, cores)]
        m.children.append(pkg)
    gpus = [pcidev(f"00:0{4 + i}.0", "0302", "[10de:20b0] [10de:134f] a1", "0.000000",
                   nvidia_osdevs(i, "NVIDIA A100-SXM4-40GB", 40326 * 1024)) for i in range(2)]
    net = pcidev("00:06.0", "0200", "[1af4:1041] [1af4:1100] 01", "0.000000", [osdev("ens6", 2)])
    m.io = [host_bridge(0x00, 0x00, gpus + [net])]
    write("cloud-vm-2node.xml", m, pu_node, [[10, 20], [20, 10]])


if __name__ == "__main__":
    two_socket_8gpu()
    epyc_nps4()
    laptop()
    cloud_vm()
