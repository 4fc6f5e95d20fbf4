#!/usr/bin/env python3
"""Makes lookout.yml(5) from `lookout config reference` (Markdown: a `### section` heading and a
table of keys per section) read on standard input; the page goes to standard output.
Usage: lookout config reference | config-manpage.py VERSION DATE"""
import re
import sys


def roff(text):
    """Escapes text for roff and turns `code` into bold."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r"`([^`]*)`", r"\\fB\1\\fR", text)
    # A line may not start with a control character.
    return "\\&" + text if text[:1] in (".", "'") else text


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: lookout config reference | config-manpage.py VERSION DATE")
    version, date = sys.argv[1], sys.argv[2]
    out = [
        f'.TH LOOKOUT.YML 5 "{date}" "lookout {version}" "File Formats"',
        ".SH NAME",
        "lookout.yml \\- the configuration file of a Lookout service",
        ".SH SYNOPSIS",
        "/etc/lookout/lookout.yml (the lookout unit), /etc/lookout/\\fINAME\\fR.yml (the lookout@\\fINAME\\fR unit)",
        ".SH DESCRIPTION",
        "A Lookout service is described by one YAML file, read by \\fBlookout run \\-\\-config\\fR \\fIFILE\\fR "
        "(or the environment variable \\fBLOOKOUT_CONFIG\\fR). Its sections are named as the option groups of "
        "\\fBlookout run \\-\\-help\\fR and its keys are the options' own names; the section \\fBcameras\\fR "
        "holds the cameras by name, each with an \\fBinput\\fR and any key marked per camera below.",
        ".PP",
        "\\fBlookout config check\\fR \\fIFILE\\fR reports every problem as FILE:LINE:COLUMN: key: what; "
        "\\fBlookout config print\\fR \\fIFILE\\fR shows every setting each camera runs with; "
        "\\fBlookout config schema\\fR prints the file's JSON Schema. A running service re-reads the file on "
        "SIGHUP (\\fBsystemctl reload lookout\\fR): only the cameras whose settings changed restart.",
        ".SH KEYS",
    ]
    sections = 0
    keys = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        heading = re.match(r"^###\s+(.+)$", line)
        if heading:
            out += [".SS " + roff(heading.group(1))]
            sections += 1
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 5 or cells[0] == "key" or set(cells[0]) <= set("-:"):
            continue
        key, per_camera, default, allowed, what = cells
        out += [".TP", "\\fB" + roff(key.strip("`")) + "\\fR",
                roff(what),
                ".br",
                roff(f"Default: {default}. Allowed: {allowed}. Per camera: {per_camera}.")]
        keys += 1
    if sections == 0 or keys == 0:
        sys.exit("config-manpage.py: no section or key in the reference read on standard input")
    out += [
        ".SH FILES",
        ".TP", "/etc/lookout/lookout.yml", "The example installed by the package (a conffile).",
        ".TP", "/etc/lookout/lookout.mqtt-password, /etc/lookout/lookout.http-token",
        "Secrets, handed to the service as systemd credentials; never in the file.",
        ".TP", "/usr/share/doc/lookout/configuration.md", "This reference with examples.",
        ".SH SEE ALSO",
        "\\fBlookout\\fR(1), \\fBlookout.run\\fR(1), \\fBlookout.config\\fR(1), \\fBsystemd.exec\\fR(5)",
    ]
    print("\n".join(out))


main()
