# mlmem: labs on memory for machine-learning systems. `make help` lists what you can do.
.DEFAULT_GOAL := help
SHELL := /bin/bash
MAKEFLAGS += --no-print-directory

LABS       := $(sort $(notdir $(wildcard labs/lab[0-9][0-9]-*)))
LAB_IDS    := $(patsubst lab%,%,$(foreach l,$(LABS),$(firstword $(subst -, ,$l))))
SUBMISSION ?= labs
BUILD      := build
DEPS_OK     = bash common/setup-deps.sh
# Sets py to a Python 3.11+ (3.10 with tomli) with pytest, or says there is none and fails.
FIND_PY     = { py=$$(common/find-python.sh) || { echo "mlmem: no Python 3.11+ (or 3.10 with tomli) with pytest found (install python3-pytest)" >&2; exit 1; }; }
# The grader's command: the packages first, then the Python; a failure of either says which it was.
GRADER      = { $(DEPS_OK) || { echo "mlmem: setting up the packages mlmem needs failed (see above); \`make deps\` tries again" >&2; exit 1; }; } && $(FIND_PY) && $$py -m grader

lab_slug = $(filter lab$(1)-%,$(LABS))
# Run as root in a checkout another uid owns (a container over a clone mounted from the host,
# `docker run -v "$PWD":...`), what a target wrote is given back to the checkout's owner, so that
# the student's own account can rebuild and delete it. Appended to a recipe's last command, it
# keeps that command's exit status.
GIVE_BACK   = ; rc=$$?; if [ "$$(id -u)" = 0 ] && own=$$(stat -c %u:%g .) && [ "$${own%%:*}" != 0 ]; then \
  chown -R "$$own" $(BUILD) 2>/dev/null; chown "$$own" *-handin.tar.gz 2>/dev/null; fi; exit $$rc

help:
	@echo "mlmem — memory for machine-learning systems, one lab at a time"
	@echo
	@echo "Students"
	@echo "  make labNN                 build lab NN from labs/ and run its unit tests (e.g. make lab01)"
	@echo "        [SAN=asan|ubsan|tsan]  under a sanitizer (AddressSanitizer+UBSan, UBSan, ThreadSanitizer),"
	@echo "                             in a folder of its own: build/labs/<lab>-asan/ (likewise WERROR=1, CC=)"
	@echo "  make grade [LAB=NN|all]    grade the lab you built last (make labNN), one lab, or every lab;"
	@echo "                             score table + build/grade/results.json"
	@echo "        [SUBMISSION=dir]     grade another tree laid out like labs/, every lab unless LAB=NN"
	@echo "        [STRICT=1]           exit non-zero unless every measured item has full marks"
	@echo "  make report [LAB=NN]       your latest grade as one page to open in a browser: tests, messages,"
	@echo "                             metrics, your plots, hints (build/grade/report.html, LAB=NN:"
	@echo "                             report-labNN.html; no regrading)"
	@echo "        [DIR=build/batch/<student>] [STAFF=1]  a batch student's page (STAFF=1: staff.html,"
	@echo "                             with hidden tests' messages)"
	@echo "  make hint LAB=NN [LEVEL=k] progressive hints: 1 a nudge, 2 the shape, 3 the step in words"
	@echo "  make handin [LAB=NN]       the archive to hand in: your code, answers.md, timelog.md, the grade"
	@echo "        [DEST=dir] [NOGRADE=1]  (<lab>-handin.tar.gz; LAB: the lab built or graded last)"
	@echo "  make hwinfo                cores, caches, line size, NUMA nodes, GPUs of this machine,"
	@echo "                             and whether it is a container, VM, WSL, emulator or Codespace"
	@echo "  make numa-guest [SUBMISSION=dir]  grade lab 04 in a two-NUMA-node QEMU guest (one-node"
	@echo "                             machines; KVM if it works, else emulated; the kernel is fetched once)"
	@echo "  make plots [LAB=NN]        PNG plots from your own benchmark runs (build/plots/)"
	@echo "  make slides                render the slide decks to HTML (build/slides/, opens offline);"
	@echo "                             with a Chromium, also checks that every slide fits its page"
	@echo
	@echo "Course staff and maintainers"
	@echo "  make test [LAB=NN]         the project's own tests: grader, skeletons fail, solutions pass,"
	@echo "                             fault injection, sanitizers (LAB=NN: what concerns that lab)"
	@echo "  make check                 the fast tier for the edit loop: the grader's unit tests and each"
	@echo "                             lab's structure and conventions (a few minutes; PYTEST_ARGS=...)"
	@echo "  make calibrate [LAB=NN] [RUNS=20] [MARGIN=0.15]  measure the reference and naive variants"
	@echo "                             RUNS times; write thresholds.toml (THRESHOLDS=file), used from then on"
	@echo "  make release [DEST=dir]    student tree without solutions, verified (build/release/mlmem)"
	@echo "  make batch SUBMISSIONS=dir [LAB=NN,MM|all] [JOBS=n] [TIMEOUT=s]  grade one folder per student"
	@echo "                             into build/batch/summary.csv (benchmarks one at a time)"
	@echo "        [OUT=dir] [FRESH=1]  an output folder holds one batch (its labs, submissions and"
	@echo "                             files); FRESH=1 starts over in one that holds another"
	@echo "        [SEED=n]             the class seed: one seed per student from it (summary.csv),"
	@echo "                             so grading the same code again gives the same correctness"
	@echo "        [ENGINE=slurm] [WAIT=0] [SLURM_ARGS=...]  as Slurm jobs: an array for the tests,"
	@echo "                             an exclusive job for the benchmarks; failed jobs re-run"
	@echo "  make batch-collect [OUT=build/batch]  a Slurm batch queued with WAIT=0: re-run, merge"
	@echo "  make gradebook ROSTER=file [OUT=build/batch] [LATE_PENALTY=10]  the batch's grades for"
	@echo "                             Canvas and Moodle (gradebook-canvas.csv, -moodle.csv, .json);"
	@echo "                             roster: CSV id,name,folder,late_days; a late day costs LATE_PENALTY%"
	@echo "  make regrade STUDENT=id LAB=NN [ROSTER=file] [OUT=build/batch]  one student's lab again,"
	@echo "                             merged into the batch (its files' sha256 recorded)"
	@echo "  make gradescope [LAB=NN] [HIDDEN=dir] [SECRET_SEED=n] [DAILY_CAP=n]  Gradescope autograder zip"
	@echo "  make grade HIDDEN=dir      add instructor-only tests (docs/instructor-guide.md)"
	@echo "  make new-lab N=NN SLUG=topic [TITLE=...]  a new lab's scaffold: skeleton, one test, one metric,"
	@echo "                             a naive variant, handout, hints, answers, slides (docs/instructor-guide.md)"
	@echo "  make portability [PLATFORMS=...] [LABS=...] [ROOTS=dir]  grade the quick start and every"
	@echo "                             lab's reference on bare Debian roots (amd64, arm64 via qemu) and"
	@echo "                             in the dev container; the table in docs/portability.md (as root)"
	@echo "  make deps                  install the packages mlmem needs, compiler included (done automatically;"
	@echo "                             bash common/setup-deps.sh --list [--test] names them)"
	@echo "  make clean                 remove build/"
	@echo
	@echo "Labs: $(LAB_IDS)"
	@for l in $(LABS); do echo "  $$l"; done

deps:
	@$(DEPS_OK)

# make labNN builds into build/labs/<slug><FLAGS_TAG>/ (common/flags.mk: one folder per flag set,
# e.g. build/labs/lab03-tensor-strides-asan/ for SAN=asan) and leaves a stamp there, `made` (the
# flags, if any): the lab built last is the one `make grade` and `make handin` take without LAB
# (grader/classtools/handin.py). What the build needs of lab.toml (the student's files, CUDA or not) the
# grader reads and passes on as make variables (python3 -m grader make-vars: grader/rules/labs.py).
lab_out = $(BUILD)/labs/$(call lab_slug,$1)$(FLAGS_TAG)
lab%:
	@if [ -z "$(call lab_slug,$*)" ]; then \
	  echo "mlmem: there is no lab '$*'. The labs are:"; for l in $(LABS); do echo "  make $${l%%-*}    ($$l)"; done; exit 2; fi
	@$(DEPS_OK)
	@mkdir -p $(call lab_out,$*) && echo "$(FLAGS_SET)" > $(call lab_out,$*)/made
	@$(if $(FLAGS_SET),echo "mlmem: $(FLAGS_SET): building into $(call lab_out,$*)/ (a folder of its own: objects built with other flags are never reused)")
	@$(FIND_PY) && vars=$$($$py -m grader make-vars --lab $*) && mapfile -t vars <<< "$$vars" && \
	  $(MAKE) -f common/lab-build.mk LABSRC=labs/$(call lab_slug,$*) OUT=$(call lab_out,$*) "$${vars[@]}"
	@echo "== unit tests of $(call lab_slug,$*) (your code in labs/$(call lab_slug,$*)/src$(if $(FLAGS_SET),; $(FLAGS_SET))) =="
	@$(call lab_out,$*)/check_lab || echo "(some tests fail: see above; \`make grade LAB=$*\` scores them)" $(GIVE_BACK)

numa-guest:
	@$(GRADER).grading.numa_guest "$(SUBMISSION)"

# Without LAB, a student's `make grade` grades the lab built last (`--lab last`: it says which);
# with SUBMISSION= given (course staff) every lab, as with LAB=all.
grade:
	@$(GRADER) grade $(if $(LAB),--lab $(LAB),$(if $(filter file,$(origin SUBMISSION)),--lab last)) --submission "$(SUBMISSION)" $(if $(filter 1,$(STRICT)),--strict) $(if $(HIDDEN),--hidden "$(HIDDEN)") $(GIVE_BACK)

batch:
	@$(GRADER) batch "$(or $(SUBMISSIONS),$(error use: make batch SUBMISSIONS=dir [LAB=NN] [JOBS=n] [TIMEOUT=s] [ENGINE=slurm]))" $(if $(LAB),--lab $(LAB)) $(if $(JOBS),--jobs $(JOBS)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(HIDDEN),--hidden "$(HIDDEN)") $(if $(ENGINE),--engine $(ENGINE)) $(if $(filter 0,$(WAIT)),--no-wait) $(if $(SLURM_ARGS),--slurm-args "$(SLURM_ARGS)") $(if $(OUT),--out "$(OUT)") $(if $(filter 1,$(FRESH)),--fresh) $(if $(SEED),--seed "$(SEED)")

batch-collect:
	@$(GRADER) collect $(if $(OUT),--out "$(OUT)") $(if $(SLURM_ARGS),--slurm-args "$(SLURM_ARGS)")

release:
	@$(GRADER) release $(if $(DEST),--dest "$(DEST)")

gradebook:
	@$(GRADER) gradebook --roster "$(or $(ROSTER),$(error use: make gradebook ROSTER=file [OUT=build/batch] [LATE_PENALTY=10]))" $(if $(OUT),--out "$(OUT)") $(if $(LATE_PENALTY),--late-penalty $(LATE_PENALTY))

regrade:
	@$(GRADER) regrade --student "$(or $(STUDENT),$(error use: make regrade STUDENT=id LAB=NN [ROSTER=file] [OUT=build/batch]))" --lab "$(or $(LAB),$(error use: make regrade STUDENT=id LAB=NN))" $(if $(ROSTER),--roster "$(ROSTER)") $(if $(OUT),--out "$(OUT)")

gradescope:
	@$(GRADER) gradescope $(if $(LAB),--lab $(LAB)) $(if $(HIDDEN),--hidden "$(HIDDEN)") $(if $(SECRET_SEED),--secret-seed "$(SECRET_SEED)") $(if $(DAILY_CAP),--daily-cap "$(DAILY_CAP)")

calibrate:
	@$(GRADER) calibrate $(if $(LAB),--lab $(LAB)) --runs "$(or $(RUNS),20)" $(if $(MARGIN),--margin $(MARGIN)) $(if $(THRESHOLDS),--write "$(THRESHOLDS)")

# report.html again from build/grade/results.json (make grade writes it too), or from a batch
# student's folder (DIR=); never grades.
report:
	@$(GRADER).reports.html_report $(if $(LAB),--lab $(LAB)) $(if $(DIR),--dir "$(DIR)") $(if $(filter 1,$(STAFF)),--staff) $(GIVE_BACK)

hint:
	@$(GRADER) hint --lab "$(or $(LAB),$(error use: make hint LAB=NN [LEVEL=k]))" --level "$(or $(LEVEL),1)"

handin:
	@$(GRADER).classtools.handin $(if $(LAB),--lab $(LAB)) $(if $(DEST),--dest "$(DEST)") $(if $(filter 1,$(NOGRADE)),--no-grade) $(GIVE_BACK)

plots:
	@$(GRADER) plots $(if $(LAB),--lab $(LAB)) --submission "$(SUBMISSION)"

# The hardware (common/hwinfo.c), then where it runs: container, VM, WSL, emulator, Codespaces
# (grader/rules/hostenv.py, which the grader reads too).
hwinfo: $(BUILD)/tools/hwinfo
	@$(BUILD)/tools/hwinfo
	@py=$$(common/find-python.sh) && $$py -m grader.rules.hostenv

include common/flags.mk
$(BUILD)/tools/hwinfo: common/hwinfo.c common/mm_hw.c common/mm_hw.h common/mm_cuda_check.h common/flags.mk
	@$(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE $(CUDA_CPPFLAGS) -o $@ common/hwinfo.c common/mm_hw.c $(CUDA_LDLIBS) $(LDLIBS) -pthread

# Not part of make test (it makes Debian roots and a container and grades every lab in each).
portability:
	@$(FIND_PY) && $$py tools/portability.py $(if $(ROOTS),--roots "$(ROOTS)") $(if $(PLATFORMS),--platforms "$(PLATFORMS)") $(if $(filter command line,$(origin LABS)),--labs "$(LABS)")

# The project's own tests (grader/tests/pytest.ini): all of them, one lab's (LAB=NN), or the fast tier.
# The whole suite ends with its 20 slowest tests, so that the 30-minute budget can be kept.
# One pytest worker more than the machine has CPUs, at most PYTEST_JOBS (pytest-xdist, installed
# with the test packages): on two CPUs, two workers left a seventh of them idle while tests waited
# on time limits, daemons and hangs. PYTEST_JOBS=1: one.
PYTEST_SELECT = $(foreach l,$(LAB),--lab $(l))
PYTEST_SLOWEST = $(if $(filter test,$@),$(if $(LAB),,--durations=20))
PYTEST_JOBS ?= 3
PYTEST_WORKERS = n=$$(nproc); [ "$$n" -gt 1 ] && n=$$((n + 1)); [ "$$n" -gt $(PYTEST_JOBS) ] && n=$(PYTEST_JOBS); \
	if [ "$$n" -gt 1 ] && $$py -c 'import xdist' 2>/dev/null; then par="-n $$n --dist loadgroup"; else par=; fi
test check:
	@[ -d grader/tests ] || { echo "mlmem: make $@ needs the course repository (this student tree has no grader/tests)"; exit 2; }
	@$(DEPS_OK) --test
	@$(FIND_PY) && $(PYTEST_WORKERS) && cd grader/tests && $$py -m pytest -q $$par $(if $(filter check,$@),-m "not slow") $(PYTEST_SELECT) $(PYTEST_SLOWEST) $(PYTEST_ARGS)

new-lab:
	@$(FIND_PY) && $$py -m grader.classtools.newlab --n "$(or $(N),$(error use: make new-lab N=NN SLUG=topic [TITLE="The title"]))" --slug "$(or $(SLUG),$(error use: make new-lab N=NN SLUG=topic [TITLE="The title"]))" $(if $(TITLE),--title "$(TITLE)")

slides:
	@bash slides/render.sh

clean:
	rm -rf $(BUILD)

.PHONY: help deps numa-guest grade batch batch-collect gradebook regrade release gradescope calibrate report hint handin plots hwinfo portability test check new-lab slides clean
