#!/usr/bin/env bash
# Fill .wheels/ (git-ignored) with the wheels that benchmarks/device_scaling.sh installs on a
# borrowed machine without network: Linux x86_64, CPython 3.12, which already has numpy, scipy,
# pandas, pyarrow, tqdm, threadpoolctl, cloudpickle, msgpack, psutil, toolz, sortedcontainers,
# jinja2, click, pyyaml, xarray, matplotlib (and their dependencies) and pytest.
#
# The list is the dependency closure of dask, distributed, pymc, pytensor and arviz less what that
# machine has, at the versions of the development environment (pip show), with two exceptions:
# numba and llvmlite (pytensor's optional numba backend; llvmlite alone is 56 MB) are left out,
# and device_scaling.sh installs with --no-deps; pymc samples with pytensor's C or Python backend.
# setuptools is the newest (Python 3.12 has no distutils; pytensor's C backend imports it).
#
#     bash benchmarks/device_wheels.sh      # needs PyPI; prints the total size (<= 50 MB)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
mkdir -p .wheels
WHEELS=(
    dask==2026.8.0 distributed==2026.8.0 partd==1.4.2 locket==1.0.0 zict==3.0.0 tblib==3.2.2
    tornado==6.6.1 fsspec==2026.6.0
    pymc==5.28.5 pytensor==2.38.3 arviz==0.23.4
    cachetools==6.2.6 cons==0.4.7 etuples==0.3.10 filelock==4.3.1 logical-unification==0.4.7
    minikanren==1.0.5 multipledispatch==1.0.0 rich==15.0.0 markdown-it-py==4.3.0 mdurl==0.1.2
    typing-extensions==4.16.0 platformdirs==4.14.8 h5netcdf==1.8.2 h5py==3.16.0
    xarray-einstats==0.9.1 setuptools
)
"$PYTHON" -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
    --dest .wheels "${WHEELS[@]}"
ls -l .wheels
total=$(du -cb .wheels/*.whl | tail -1 | cut -f1)
echo "total $((total / 1000000)) MB in $(ls .wheels/*.whl | wc -l) wheels"
if [ "$total" -gt 50000000 ]; then
    echo "over 50 MB: remove what the device machine already has" >&2
    exit 1
fi
