#!/usr/bin/env python3
"""Plots ns/op by path and thread count, one panel per table size, from
weavedi-bench's JSON (scripts/bench.sh calls this)."""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

source, target = sys.argv[1], sys.argv[2]
rows = json.load(open(source))["results"]
sizes = sorted({r["table_size"] for r in rows})
threads = sorted({r["threads"] for r in rows})
# One bar group per path id (labels that name the table size are generalised).
for r in rows:
    r["label"] = re.sub(r"all \d+ Nest types", "all N Nest types", r["label"])
labels = []
for r in rows:
    if r["label"] not in labels:
        labels.append(r["label"])

colors = {"floor": "#777777", "resolve": "#1f77b4", "wrappers": "#2ca02c", "overrides": "#9467bd",
          "registration": "#8c564b", "peer:swinject": "#d62728", "peer:swift-dependencies": "#ff7f0e"}
group_of = {r["label"]: r["group"] for r in rows}

fig, axes = plt.subplots(1, len(sizes), figsize=(7 * len(sizes), 0.32 * len(labels) + 2), sharey=True, squeeze=False)
height = 0.8 / len(threads)
for ax, size in zip(axes[0], sizes):
    for t_index, t in enumerate(threads):
        values = []
        for label in labels:
            match = [r for r in rows if r["label"] == label and r["table_size"] == size and r["threads"] == t]
            values.append(match[0]["ns_per_op"] if match else 0)
        ys = [i + (t_index - (len(threads) - 1) / 2) * height for i in range(len(labels))]
        ax.barh(ys, values, height=height,
                color=[colors.get(group_of[l], "#333333") for l in labels],
                alpha=1.0 if t_index == 0 else 0.5, edgecolor="black", linewidth=0.3,
                label=f"{t} thread{'s' if t > 1 else ''}")
    ax.set_xscale("log")
    ax.set_title(f"{size:,} registered types")
    ax.set_xlabel("ns per operation per thread (log scale; solid = 1 thread, light = 2)")
    ax.grid(axis="x", which="both", alpha=0.3)
axes[0][0].set_yticks(range(len(labels)))
axes[0][0].set_yticklabels(labels, fontsize=8)
axes[0][0].invert_yaxis()
axes[0][0].legend(loc="lower right", fontsize=8)
fig.suptitle("WeaveDI vs Swinject 2.10.0 vs swift-dependencies 1.17.1 (best of N rounds; lower is better)")
fig.tight_layout()
fig.savefig(target, dpi=110)
print(f"wrote {target}")
