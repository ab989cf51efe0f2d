"""A handler for torch.profiler.profile(on_trace_ready=...) that writes any tconv format.

    import torch, tconv.torch
    with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
                                on_trace_ready=tconv.torch.on_trace_ready("runs", "pprof")) as p:
        for batch in data:
            train(batch)
            p.step()

Each time the profiler hands over a trace (once per active window of the schedule), the trace is
exported as Chrome JSON next to the output and converted; the JSON is removed unless keep_trace.
Files are named as torch.profiler.tensorboard_trace_handler names its own,
"{worker_name}.{milliseconds}.pt.trace" with the writer's ending (".pb.gz" for pprof).
"""

import os
import socket
import time

from . import convert

# The ending each bundled writer is inferred from, for the output's name.
ENDINGS = {
    "pprof": ".pb.gz",
    "folded": ".folded",
    "flamegraph": ".svg",
    "html": ".html",
    "csv": ".csv",
    "summary": ".txt",
    "text": ".txt",
    "chrome": ".json.gz",
    "otf2": ".otf2",
    "perfetto": ".pftrace",
    "speedscope": ".speedscope.json",
}


def on_trace_ready(dir_name, writer="pprof", worker_name=None, keep_trace=False,
                   writer_options=None, **convert_options):
    """A function for on_trace_ready that converts each trace into dir_name with writer.

    worker_name: default "{hostname}_{pid}", as tensorboard_trace_handler's.
    keep_trace: also keep the exported Chrome JSON ("....pt.trace.json").
    writer_options, convert_options: passed on to tconv.convert.
    The handler's .results lists the tconv.Result of each conversion."""
    dir_name = os.fspath(dir_name)
    worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
    ending = ENDINGS.get(writer, "." + writer)

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        base = os.path.join(dir_name, f"{worker}.{int(time.time() * 1000)}.pt.trace")
        # The trace's own name, which pprof shows as the profile's "File".
        trace = base + ".json"
        prof.export_chrome_trace(trace)
        try:
            r = convert(trace, base + ending, reader="chrome", writer=writer,
                        writer_options=writer_options, **convert_options)
        finally:
            if not keep_trace:
                try:
                    os.unlink(trace)
                except FileNotFoundError:
                    pass
        handler.results.append(r)
        return r

    handler.results = []
    return handler
