# Shortcuts; the scripts under scripts/ do the work.
.PHONY: all deps test demo asan tsan sanitize bench format

all:
	cmake -S . -B build -G Ninja && cmake --build build

deps:
	bash scripts/install-deps.sh

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh

asan:
	bash scripts/test.sh --sanitize address

tsan:
	bash scripts/test.sh --sanitize thread

sanitize: asan tsan

bench: all
	bash scripts/bench.sh

format:
	git ls-files '*.cpp' '*.hpp' | xargs clang-format -i
