"""The Python binding against the real library and plugins of the build: results, errors,
formats, and python3 -m tconv."""

import gzip
import os
import subprocess
import sys
import unittest

import tconv

SRC = os.environ["TCONV_TEST_SRC"]
TMP = os.environ["TCONV_TEST_TMP"]
EXAMPLE = os.path.join(SRC, "examples", "traces", "kineto-minitoy.json.gz")


def out(name):
    return os.path.join(TMP, name)


def go_pprof_top(path):
    return subprocess.run(["go", "tool", "pprof", "-top", "-nodefraction=0", path],
                          capture_output=True, text=True, check=True).stdout


class Convert(unittest.TestCase):
    def test_writer_from_name(self):
        r = tconv.convert(EXAMPLE, out("a.pb.gz"))
        self.assertEqual(r.outcome, "done")
        self.assertEqual(r.output, out("a.pb.gz"))
        self.assertEqual(r.inputs, 1)
        self.assertGreater(r.events, 100)
        self.assertGreater(r.bytes_plain, r.bytes_read)
        self.assertIn("aten::", go_pprof_top(out("a.pb.gz")))

    def test_same_bytes_as_the_command(self):
        tconv.convert(EXAMPLE, out("b.folded"))
        exe = os.path.join(os.environ["TCONV_TEST_BUILD"], "tconv")
        subprocess.run([exe, "-q", "-o", out("c.folded"), EXAMPLE], check=True)
        with open(out("b.folded"), "rb") as a, open(out("c.folded"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_options_and_steps(self):
        r = tconv.convert([EXAMPLE], out("d.folded"), writer="folded",
                          writer_options={"unit": "us"}, jobs=1)
        self.assertEqual(r.outcome, "done")
        whole = open(out("d.folded")).read()
        self.assertTrue(whole.strip())
        with self.assertRaises(tconv.Error) as e:
            tconv.convert(EXAMPLE, out("e.folded"), writer_options={"unit": "furlongs"})
        self.assertEqual(e.exception.outcome, "usage")
        self.assertIn("furlongs", e.exception.message)

    def test_warnings_and_notes(self):
        r = tconv.convert(EXAMPLE, out("f.pb.gz"))
        self.assertTrue(any("--all-spans" in n for n in r.notes), r.notes)
        for w in r.warnings.values():
            self.assertGreater(w.count, 0)
            self.assertTrue(w.first)

    def test_error_has_the_place(self):
        bad = out("bad.json")
        with open(bad, "w") as f:
            f.write('[{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1},\n'
                    ' {"ph": "X", "name": "b", "ts": ')
        with self.assertRaises(tconv.Error) as e:
            tconv.convert(bad, out("bad.pb.gz"), reader="chrome")
        self.assertEqual(e.exception.outcome, "failed")
        self.assertTrue(e.exception.message.startswith(bad + ":"), e.exception.message)
        self.assertFalse(os.path.exists(out("bad.pb.gz")))

    def test_failure_keeps_the_old_output(self):
        keep = out("keep.pb.gz")
        with open(keep, "wb") as f:
            f.write(b"old")
        with self.assertRaises(tconv.Error):
            tconv.convert(out("does-not-exist.json"), keep)
        with open(keep, "rb") as f:
            self.assertEqual(f.read(), b"old")

    def test_no_writer(self):
        with self.assertRaises(tconv.Error) as e:
            tconv.convert(EXAMPLE, out("x.unknown-ending"))
        self.assertEqual(e.exception.outcome, "usage")
        self.assertIn("-w", e.exception.message)

    def test_keep_going_is_partial(self):
        with self.assertRaises(tconv.Error) as e:
            tconv.convert([EXAMPLE, out("missing.json")], out("g.pb.gz"), keep_going=True)
        self.assertEqual(e.exception.outcome, "partial")
        self.assertIsNotNone(e.exception.result)
        self.assertEqual(e.exception.result.inputs_failed, 1)
        self.assertTrue(os.path.exists(out("g.pb.gz")))


class Formats(unittest.TestCase):
    def test_formats(self):
        f = tconv.formats()
        self.assertIn("chrome", f.readers)
        self.assertIn("pprof", f.writers)
        pprof = f.writers["pprof"]
        self.assertIn("pb.gz", pprof.extensions)
        unit = {o.name: o for o in pprof.options}["unit"]
        self.assertEqual(unit.type, "enum")
        self.assertIn("ms", unit.choices.split("|"))
        self.assertTrue(pprof.path.endswith(".so"))

    def test_same_as_list(self):
        exe = os.path.join(os.environ["TCONV_TEST_BUILD"], "tconv")
        listed = subprocess.run([exe, "--list"], capture_output=True, text=True,
                                check=True).stdout.split("\n")
        writers = {l.split()[1] for l in listed if l.strip().startswith("writer ")}
        readers = {l.split()[1] for l in listed if l.strip().startswith("reader ")}
        f = tconv.formats()
        self.assertEqual(set(f.writers), writers)
        self.assertEqual(set(f.readers), readers)

    def test_version(self):
        v, (major, minor) = tconv.version()
        self.assertRegex(v, r"^\d+\.\d+\.\d+$")
        self.assertEqual(major, 1)


class Module(unittest.TestCase):
    def run_module(self, *args, **kw):
        return subprocess.run([sys.executable, "-m", "tconv", *args], capture_output=True,
                              text=True, **kw)

    def test_like_the_command(self):
        exe = os.path.join(os.environ["TCONV_TEST_BUILD"], "tconv")
        for args in (["--version"], ["--list"], ["-w", "nonesuch", EXAMPLE]):
            a = self.run_module(*args)
            b = subprocess.run([exe, *args], capture_output=True, text=True)
            self.assertEqual((a.returncode, a.stdout, a.stderr.replace(exe, "tconv")),
                             (b.returncode, b.stdout, b.stderr.replace(exe, "tconv")), args)
        a = self.run_module("-w", "text", EXAMPLE)
        self.assertEqual(a.returncode, 0)
        self.assertIn("aten::", a.stdout)


if __name__ == "__main__":
    unittest.main()
