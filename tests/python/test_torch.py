"""The PyTorch profiler hook end to end: a tiny model profiled with Debian's python3-torch, its
traces converted by the handler, and the profile opened in go tool pprof."""

import os
import subprocess
import unittest

import torch
import torch.profiler as tp

import tconv.torch

TMP = os.environ["TCONV_TEST_TMP"]


class TorchHook(unittest.TestCase):
    def test_profile_to_pprof(self):
        runs = os.path.join(TMP, "runs")
        model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 8))
        handler = tconv.torch.on_trace_ready(runs, "pprof", worker_name="worker0")
        schedule = tp.schedule(wait=1, warmup=1, active=2, repeat=2)
        with tp.profile(activities=[tp.ProfilerActivity.CPU], schedule=schedule,
                        on_trace_ready=handler) as prof:
            for _ in range(10):
                model(torch.randn(32, 64)).sum().backward()
                prof.step()
        # One output per active window, named as tensorboard_trace_handler names its files;
        # the exported JSON is gone.
        names = sorted(os.listdir(runs))
        self.assertEqual(len(names), 2, names)
        for n in names:
            self.assertRegex(n, r"^worker0\.\d+\.pt\.trace\.pb\.gz$")
        self.assertEqual([r.outcome for r in handler.results], ["done", "done"])
        top = subprocess.run(["go", "tool", "pprof", "-top", "-nodefraction=0",
                              os.path.join(runs, names[0])],
                             capture_output=True, text=True, check=True).stdout
        # The ops the model ran, each with self time.
        for op in ("aten::addmm", "aten::relu", "AddmmBackward0"):
            self.assertIn(op, top)
        self.assertIn("Type: wall", top)

    def test_keep_trace_and_other_writer(self):
        runs = os.path.join(TMP, "runs2")
        handler = tconv.torch.on_trace_ready(runs, "folded", worker_name="w", keep_trace=True)
        with tp.profile(activities=[tp.ProfilerActivity.CPU], on_trace_ready=handler):
            torch.nn.Linear(8, 8)(torch.randn(4, 8))
        names = sorted(os.listdir(runs))
        self.assertEqual(len(names), 2, names)
        self.assertTrue(names[0].endswith(".pt.trace.folded"), names)
        self.assertTrue(names[1].endswith(".pt.trace.json"), names)
        self.assertIn("aten::addmm", open(os.path.join(runs, names[0])).read())


if __name__ == "__main__":
    unittest.main()
