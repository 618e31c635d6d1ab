# The tuner's search and lowering build and drop millions of small loop-IR nodes and program
# states a round. Under glibc's malloc a mobilenet_v2 tuning job spent about 30% of its samples
# in malloc, free and their bin consolidation; with jemalloc the same job ran 1.56x more trials
# per minute (docs/tuner.md, "Memory allocator"). So the programs that tune link jemalloc:
#
#   target_link_libraries(<tuning executable> PRIVATE tf_fast_allocator)
#
# Only executables that run the tuner take it: `tunefarm` (so its run/bench/agent subcommands
# too) and the tuning benches. Libraries, the deploy runtime, `tunefarm-agent` and the measure
# helper keep the system allocator. Candidates are timed in the measure helper, and a model's
# run allocates nothing per inference (its arena is planned), so no timing depends on it.
option(TUNEFARM_JEMALLOC "Link the tuning executables with jemalloc (libjemalloc-dev)" ON)
add_library(tf_fast_allocator INTERFACE)
if(TUNEFARM_JEMALLOC)
  find_library(TUNEFARM_JEMALLOC_LIBRARY NAMES jemalloc)
  if(TUNEFARM_JEMALLOC_LIBRARY)
    target_link_libraries(tf_fast_allocator INTERFACE ${TUNEFARM_JEMALLOC_LIBRARY})
    target_compile_definitions(tf_fast_allocator INTERFACE TUNEFARM_ALLOCATOR="jemalloc")
    message(STATUS "tunefarm: the tuner links jemalloc (${TUNEFARM_JEMALLOC_LIBRARY})")
  else()
    message(WARNING "tunefarm: libjemalloc-dev is not installed, so the tuner uses glibc's malloc and "
                    "tunes about 1.5x slower (scripts/setup.sh installs it; -DTUNEFARM_JEMALLOC=OFF hides this)")
  endif()
endif()
