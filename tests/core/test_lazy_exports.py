"""`trialrun.lazy.lazy_exports`: a package's names imported on first use, and the three
packages that use it (`trialrun`, `trialrun.reports`, `trialrun.history`)."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from trialrun.lazy import lazy_exports


def _package(exports: dict[str, str]) -> types.ModuleType:
    package = types.ModuleType("lazy_demo")
    namespace = vars(package)
    namespace["__getattr__"], namespace["__dir__"] = lazy_exports(
        "lazy_demo", namespace, exports
    )
    return package


def test_a_name_is_imported_when_first_read_and_kept() -> None:
    package = _package({"dumps": "json", "Fraction": "fractions"})
    assert "dumps" not in vars(package)
    import json

    assert package.dumps is json.dumps
    assert vars(package)["dumps"] is json.dumps  # the next read is a plain lookup
    assert {"dumps", "Fraction"} <= set(dir(package))


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    package = _package({"dumps": "json"})
    with pytest.raises(AttributeError, match="module 'lazy_demo' has no attribute 'nope'"):
        package.nope  # noqa: B018
    assert hasattr(package, "dumps") and not hasattr(package, "loads")


def test_the_lazy_packages_load_nothing_until_a_name_is_read() -> None:
    probe = (
        "import sys, trialrun, trialrun.reports, trialrun.history\n"
        "assert 'trialrun.workflow' not in sys.modules\n"
        "assert 'trialrun.reports._html' not in sys.modules\n"
        "assert 'sqlalchemy' not in sys.modules\n"
        "assert callable(trialrun.run) and 'trialrun.workflow' in sys.modules\n"
        "assert 'run' in dir(trialrun) and 'write_html_report' in dir(trialrun.reports)\n"
        "assert callable(trialrun.reports.write_html_report)\n"
        "assert 'trialrun.reports._html' in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
