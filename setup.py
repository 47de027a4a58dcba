"""The compiled double-dummy search (docs/bots.md §4.10), the one part pyproject.toml cannot
declare without setuptools' experimental table: plain C built by the system's compiler, so
`pip install -e .` needs gcc and the Python headers, and no Rust toolchain or crate registry."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "domain.solver._kernel",
            sources=["domain/solver/_kernel.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
    ]
)
