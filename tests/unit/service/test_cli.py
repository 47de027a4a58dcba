"""``preferans`` run as operators run it, in a subprocess: a bad configuration is one line on
stderr and an exit code of its own; the help lists every command and every setting."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from service import cli
from service.platform import preflight
from service.platform.settings import Settings, variable_of
from service.platform.settings import __doc__ as settings_doc


def preferans(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        env={**clean, **env}, cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


def test_a_malformed_setting_names_its_variable_and_exits_3(tmp_path):
    result = preferans("serve", cwd=tmp_path, PREFERANS_PORT="abc")
    assert result.returncode == 3 == preflight.BadSetting.exit_code
    assert one_line(result) == (
        "preferans: PREFERANS_PORT='abc' is not valid: a whole number from 1 to 65535"
    )


@pytest.mark.parametrize(
    ("variable", "value", "wanted"),
    [
        ("PREFERANS_PORT", "99999", "a whole number from 1 to 65535"),
        ("PREFERANS_PORT", "0", "a whole number from 1 to 65535"),
        ("PREFERANS_WORKERS", "0", "a whole number of at least 1"),
        ("PREFERANS_CONNECT_TIMEOUT", "-1", "a number above 0"),
        ("PREFERANS_POOL_MIN_SIZE", "50", "at most PREFERANS_POOL_MAX_SIZE (20)"),
    ],
)
def test_a_setting_out_of_range_exits_3_before_anything_starts(tmp_path, variable, value, wanted):
    """PREFERANS_PORT=99999 used to start the embedded database (27 s) and then crash with a
    traceback in the server: now it is one line, and no data folder was even made."""
    result = preferans("serve", cwd=tmp_path, **{variable: value})
    assert result.returncode == 3
    assert one_line(result) == f"preferans: {variable}={value!r} is not valid: {wanted}"
    assert not (tmp_path / "data").exists()


def test_a_port_option_out_of_range_is_bad_usage(tmp_path):
    result = preferans("serve", "--port", "99999", cwd=tmp_path)
    assert result.returncode == 2
    assert "'99999' is not a whole number from 1 to 65535" in result.stderr
    assert not (tmp_path / "data").exists()


def test_a_port_in_use_is_one_line_and_exits_9_before_the_database_starts(tmp_path):
    """granian binds with SO_REUSEPORT: a second service used to start on a port in use and
    share its connections with the first. A listener with SO_REUSEPORT stands in for it."""
    with socket.socket() as first:
        first.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        first.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        first.bind(("127.0.0.1", 0))
        first.listen()
        port = first.getsockname()[1]
        result = preferans("serve", cwd=tmp_path, PREFERANS_PORT=str(port))
    assert result.returncode == 9 == preflight.ListenAddressTaken.exit_code
    assert one_line(result) == (
        f"preferans: 127.0.0.1:{port} is already in use (another preferans serve?): stop it, "
        "or set PREFERANS_PORT (--port) to a free port"
    )
    assert not (tmp_path / "data").exists()


def test_a_claimed_port_is_refused_to_the_next_service_while_the_first_starts():
    """The claim holds the port from before the database starts until the server is done,
    and lets this service's own server (SO_REUSEPORT) bind beside it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with preflight.claim_listen_address("127.0.0.1", port):
        with pytest.raises(preflight.ListenAddressTaken, match="already in use"):
            preflight.claim_listen_address("127.0.0.1", port)
        with socket.socket() as server:  # what granian does
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            server.bind(("127.0.0.1", port))
            server.listen()
    preflight.claim_listen_address("127.0.0.1", port).close()  # free again once released


def test_a_setting_with_a_fixed_set_of_values_lists_them(tmp_path):
    result = preferans("serve", cwd=tmp_path, PREFERANS_BOT_WORKER="thread")
    assert result.returncode == 3
    assert one_line(result).endswith("one of process, inline, off")


@pytest.mark.parametrize(
    "url",
    ["not a url", "postgresql://u@[bad/x", "postgresql://u:secret@127.0.0.1:abc/x", "mysql://h/x"],
)
def test_a_malformed_database_url_is_one_line_and_exits_4(tmp_path, url):
    result = preferans("serve", cwd=tmp_path, DATABASE_URL=url)
    assert result.returncode == 4
    line = one_line(result)
    assert line.startswith("preferans: DATABASE_URL ")
    assert "secret" not in line  # the password is never printed


@pytest.mark.parametrize("command", [["serve"], ["db", "upgrade"], ["projections", "status"]])
def test_an_unreachable_database_is_one_line_and_exits_5(tmp_path, command):
    url = "postgresql://u:secret@127.0.0.1:1/x"  # nothing listens on port 1
    result = preferans(*command, cwd=tmp_path, DATABASE_URL=url, PREFERANS_CONNECT_TIMEOUT="2")
    assert result.returncode == 5
    line = one_line(result)
    assert (
        line == "preferans: cannot reach the database at postgresql://u:***@127.0.0.1:1/x: "
        "Connection refused"
    )


def test_a_data_folder_that_cannot_be_written_is_one_line_and_exits_7(tmp_path):
    if os.geteuid() == 0:  # root writes through any mode bits: a folder under a file fails
        (tmp_path / "a-file").write_text("")
        data = tmp_path / "a-file" / "data"
    else:
        (tmp_path / "ro").mkdir(mode=0o555)
        data = tmp_path / "ro" / "data"
    result = preferans("serve", cwd=tmp_path, PREFERANS_DATA_DIR=str(data))
    assert result.returncode == 7
    assert one_line(result).startswith(f"preferans: the data folder '{data}' cannot be written")


def test_version(tmp_path):
    result = preferans("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert re.fullmatch(r"preferans \d+\.\d+\.\d+\S*\n", result.stdout)


def test_help_lists_every_command_every_setting_and_the_exit_codes(tmp_path):
    result = preferans("--help", cwd=tmp_path)
    assert result.returncode == 0
    text = result.stdout
    for command in ("db upgrade", "serve", "bots", "openapi", "projections status",
                    "projections rebuild", "projections resume", "games import"):  # fmt: skip
        assert f"preferans {command}" in text
    for field in Settings.__struct_fields__:
        assert variable_of(field) in text, field
    for code in cli.EXIT_CODES:
        assert re.search(rf"^ +{code} +[A-Z]", text, re.MULTILINE), code


def test_the_settings_docstring_lists_every_setting():
    documented = set(re.findall(r"\b(?:PREFERANS_[A-Z_]+|DATABASE_URL|OTEL_[A-Z_]+)", settings_doc))
    wanted = {variable_of(field) for field in Settings.__struct_fields__}
    assert wanted <= documented, wanted - documented
