# The mlmem image: Debian 12 with what the labs and the grader need (common/setup-deps.sh), for
# Docker, Podman, Dev Containers and Codespaces, on amd64 and arm64 (Apple Silicon runs arm64).
#   docker build -t mlmem .                                   this machine's architecture
#   docker buildx build --platform linux/amd64,linux/arm64 -t mlmem .
#   docker build --build-arg BASE=mlmem-base:debian12-amd64 -t mlmem .
#     a locally made base instead of debian:12 (where no image registry is reachable:
#     `docker import` a debootstrap root, as `make portability` does)
# Run it with what lab 04's memory-policy calls need (CAP_SYS_NICE; move_pages, which Docker's
# default seccomp profile refuses):
#   docker run --rm -it --cap-add=SYS_NICE --security-opt seccomp=unconfined -v "$PWD":/workspaces/mlmem -w /workspaces/mlmem mlmem
# An empty BASE (the dev container's default) means debian:12.
ARG BASE=debian:12
FROM ${BASE:-debian:12}

# git to fetch the labs; everything else, the compiler included, is setup-deps.sh's list.
ENV DEBIAN_FRONTEND=noninteractive
COPY common/setup-deps.sh /tmp/mlmem-setup-deps.sh
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends ca-certificates git \
 && bash /tmp/mlmem-setup-deps.sh \
 && rm -rf /var/lib/apt/lists/* /tmp/mlmem-setup-deps.sh

WORKDIR /workspaces/mlmem
CMD ["bash"]
