# Helpers shared by tests/, microbench/ and apps/.
#
#   si_add_unit_test(<name> SOURCES ... LIBS ... [LABELS ...])
#       GoogleTest executable, every test case registered with CTest (label unit,
#       or unit-tsan with LABELS tsan: race-prone code for the ThreadSanitizer run).
#   si_add_mpi_program(<name> SOURCES ... [LIBS ...] [BASELINES mpich openmpi | none] [STANDARD_ABI])
#       Builds one MPI source against this runtime (<name>) and against each
#       installed baseline MPI named in BASELINES (default: mpich):
#       <name>.mpich against Debian's MPICH, <name>.openmpi against Debian's
#       Open MPI. A library in LIBS that has a twin for that baseline
#       (si_add_mpi_library) is replaced by the twin.
#       With STANDARD_ABI, also <name>.stdabi, against the MPI standard ABI
#       (libmpi_abi and its mpi.h).
#   si_add_mpi_library(<name> SOURCES ... [LIBS ...] [BASELINES mpich openmpi])
#       A static library written against mpi.h, built the same ways.
#   si_mpi_twins(<out> <name>)
#       <name> and those of its twins that exist.
#   si_add_mpi_test(NAME <test> PROGRAM <prog> NPROCS <n> [ARGS ...] [ENV K=V ...]
#                   [LAUNCHERS sirun hydra abi stdabi mpich openmpi] [TIMEOUT s] [LABELS ...])
#       One CTest test per launcher: sirun (this runtime under the project's
#       launcher), hydra (this runtime under mpiexec.hydra), abi (the MPICH
#       build on this runtime through the MPICH ABI, sirun --abi mpich), stdabi
#       (the STANDARD_ABI build on this runtime, libmpi_abi), mpich (the MPICH
#       build under mpiexec.hydra, the reference) and openmpi (the
#       Open MPI build under mpirun.openmpi). A test passes when the
#       launcher exits 0 and the output has the line "No Errors", which rank 0
#       prints after MPI_Finalize (SI_RUN_MPI_TEST checks both).
#   SI_RUN_MPI_TEST
#       tests/run-mpi-test.sh: put it in front of any other multi-process test
#       command; CTest's PASS_REGULAR_EXPRESSION would ignore the exit status.

find_package(GTest REQUIRED)
include(GoogleTest)
# The baseline twins; the sanitizer builds turn them off (their tests are not run there).
option(SI_WITH_MPICH "Also build MPI programs against Debian's MPICH and Open MPI" ON)
if(SI_WITH_MPICH)
  pkg_check_modules(MPICH IMPORTED_TARGET mpich)
  pkg_check_modules(OPENMPI IMPORTED_TARGET ompi-c)
endif()
# pkg-config target of each baseline that was found.
set(SI_BASELINE_mpich_TARGET PkgConfig::MPICH)
set(SI_BASELINE_openmpi_TARGET PkgConfig::OPENMPI)
# Open MPI's mpi.h pulls in its deprecated C++ bindings, which need libmpi_cxx.
set(SI_BASELINE_openmpi_DEFINES OMPI_SKIP_MPICXX=1)
set(SI_FOUND_BASELINES "")
if(MPICH_FOUND)
  list(APPEND SI_FOUND_BASELINES mpich)
endif()
if(OPENMPI_FOUND)
  list(APPEND SI_FOUND_BASELINES openmpi)
endif()
find_program(SI_HYDRA mpiexec.hydra)
find_program(SI_OPENMPI_RUN mpirun.openmpi)

# Tiers this configuration cannot register, one line each ("<tier>: why");
# tests/run-tests.sh reports them and, under SI_TEST_NO_SKIP=1, fails.
set(SI_MISSING_TIERS_FILE ${PROJECT_BINARY_DIR}/missing-test-tiers.txt)
file(WRITE ${SI_MISSING_TIERS_FILE} "")
if(SI_WITH_MPICH AND NOT MPICH_FOUND)
  file(APPEND ${SI_MISSING_TIERS_FILE} "mpich: pkg-config finds no mpich (Debian package "
       "libmpich-dev): no .mpich twins, no mpich.* reference tests\n")
endif()
if(SI_WITH_MPICH AND NOT (OPENMPI_FOUND AND SI_OPENMPI_RUN))
  file(APPEND ${SI_MISSING_TIERS_FILE} "openmpi: pkg-config finds no ompi-c or no mpirun.openmpi "
       "(Debian packages libopenmpi-dev, openmpi-bin): no .openmpi twins, no openmpi.* tests\n")
endif()
if(NOT SI_HYDRA)
  file(APPEND ${SI_MISSING_TIERS_FILE} "hydra: no mpiexec.hydra (Debian package mpich): "
       "no hydra.* tests\n")
endif()

set(SI_TEST_TIMEOUT 120 CACHE STRING "Default timeout (seconds) of one multi-process test")
set(SI_RUN_MPI_TEST ${CMAKE_CURRENT_LIST_DIR}/../tests/run-mpi-test.sh)

function(si_add_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main si_warnings)
  # One label only: gtest_discover_tests splits a list value of PROPERTIES
  # (CMake 3.25), so "unit;tsan" would leave just "unit". Labels are matched
  # as regular expressions, so "unit-tsan" is selected by -L unit and -L tsan.
  set(label unit)
  if(T_LABELS)
    if(NOT T_LABELS STREQUAL "tsan")
      message(FATAL_ERROR "si_add_unit_test(${name}): LABELS may only be tsan")
    endif()
    set(label unit-tsan)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} TIMEOUT 120 DISCOVERY_TIMEOUT 30)
endfunction()

# Sets <out> to <libs> with every library that has a <baseline> twin replaced by
# it, so that nothing built against this runtime's mpi.h ends up in a baseline's
# program.
function(_si_baseline_libs out baseline)
  set(libs "")
  foreach(lib IN LISTS ARGN)
    if(TARGET ${lib}.${baseline})
      list(APPEND libs ${lib}.${baseline})
    else()
      list(APPEND libs ${lib})
    endif()
  endforeach()
  set(${out} ${libs} PARENT_SCOPE)
endfunction()

# The baselines of BASELINES (default mpich) that are installed.
function(_si_wanted_baselines out)
  if(NOT ARGN)
    set(ARGN mpich)
  endif()
  set(wanted "")
  foreach(baseline IN LISTS ARGN)
    if(baseline STREQUAL "none")  # a program only this runtime can build (MPIX_ calls)
      continue()
    endif()
    if(NOT baseline MATCHES "^(mpich|openmpi)$")
      message(FATAL_ERROR "BASELINES: unknown '${baseline}' (mpich, openmpi)")
    endif()
    if(baseline IN_LIST SI_FOUND_BASELINES)
      list(APPEND wanted ${baseline})
    endif()
  endforeach()
  set(${out} ${wanted} PARENT_SCOPE)
endfunction()

function(si_add_mpi_program name)
  cmake_parse_arguments(P "STANDARD_ABI" "" "SOURCES;LIBS;BASELINES" ${ARGN})
  add_executable(${name} ${P_SOURCES})
  target_link_libraries(${name} PRIVATE simpi ${P_LIBS} si_warnings)
  if(P_STANDARD_ABI)
    # <name>.stdabi: compiled against the MPI standard ABI's mpi.h, linked
    # with libmpi_abi (launcher stdabi).
    add_executable(${name}.stdabi ${P_SOURCES})
    target_include_directories(${name}.stdabi BEFORE PRIVATE ${SI_ABI_INCLUDE_DIR})
    target_link_libraries(${name}.stdabi PRIVATE mpi_abi ${P_LIBS} si_warnings)
  endif()
  _si_wanted_baselines(baselines ${P_BASELINES})
  foreach(baseline IN LISTS baselines)
    _si_baseline_libs(libs ${baseline} ${P_LIBS})
    add_executable(${name}.${baseline} ${P_SOURCES})
    target_link_libraries(${name}.${baseline} PRIVATE ${SI_BASELINE_${baseline}_TARGET} ${libs}
                                                      si_warnings)
    target_compile_definitions(${name}.${baseline} PRIVATE ${SI_BASELINE_${baseline}_DEFINES})
  endforeach()
endfunction()

function(si_add_mpi_library name)
  cmake_parse_arguments(L "" "" "SOURCES;LIBS;BASELINES" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_link_libraries(${name} PUBLIC simpi ${L_LIBS} PRIVATE si_warnings)
  _si_wanted_baselines(baselines ${L_BASELINES})
  foreach(baseline IN LISTS baselines)
    _si_baseline_libs(libs ${baseline} ${L_LIBS})
    add_library(${name}.${baseline} STATIC ${L_SOURCES})
    target_link_libraries(${name}.${baseline} PUBLIC ${SI_BASELINE_${baseline}_TARGET} ${libs}
                                              PRIVATE si_warnings)
    target_compile_definitions(${name}.${baseline} PUBLIC ${SI_BASELINE_${baseline}_DEFINES})
  endforeach()
endfunction()

function(si_mpi_twins out name)
  set(targets ${name})
  foreach(baseline IN LISTS SI_FOUND_BASELINES ITEMS stdabi)
    if(TARGET ${name}.${baseline})
      list(APPEND targets ${name}.${baseline})
    endif()
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Whether a program's sources start threads of their own (pthread_create,
# std::thread): its tests are ThreadSanitizer's in every mode, not only in the
# modes that add a runtime thread.
function(_si_starts_threads out program)
  get_target_property(sources ${program} SOURCES)
  get_target_property(dir ${program} SOURCE_DIR)
  set(found FALSE)
  foreach(source IN LISTS sources)
    if(NOT IS_ABSOLUTE ${source})
      set(source ${dir}/${source})
    endif()
    if(EXISTS ${source})
      file(READ ${source} text)
      if(text MATCHES "pthread_create|std::j?thread")
        set(found TRUE)
      endif()
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(si_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;PROGRAM;NPROCS;TIMEOUT" "ARGS;ENV;LAUNCHERS;LABELS" ${ARGN})
  if(NOT T_LAUNCHERS)
    set(T_LAUNCHERS sirun hydra)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${SI_TEST_TIMEOUT})
  endif()
  if(NOT T_LABELS)
    set(T_LABELS integration)
  endif()
  _si_starts_threads(threads ${T_PROGRAM})
  if(threads AND NOT "tsan" IN_LIST T_LABELS)
    list(APPEND T_LABELS tsan)
  endif()
  foreach(launcher IN LISTS T_LAUNCHERS)
    set(run_options "")
    if(launcher STREQUAL "sirun")
      # sirun's own timeout ends a hung job cleanly (and reports which ranks were
      # still running) a little before CTest would kill it.
      math(EXPR job_timeout "${T_TIMEOUT} - 5")
      set(cmd $<TARGET_FILE:sirun> --timeout ${job_timeout} -n ${T_NPROCS}
              $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS})
    elseif(launcher STREQUAL "hydra")
      if(NOT SI_HYDRA)
        continue()
      endif()
      set(cmd ${SI_HYDRA} -n ${T_NPROCS} $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS})
    elseif(launcher STREQUAL "abi")
      # The MPICH build run by sirun on this runtime (--abi mpich).
      if(NOT TARGET ${T_PROGRAM}.mpich)
        continue()
      endif()
      math(EXPR job_timeout "${T_TIMEOUT} - 5")
      set(cmd $<TARGET_FILE:sirun> --abi mpich --timeout ${job_timeout} -n ${T_NPROCS}
              $<TARGET_FILE:${T_PROGRAM}.mpich> ${T_ARGS})
    elseif(launcher STREQUAL "stdabi")
      # The standard-ABI build on this runtime (libmpi_abi).
      if(NOT TARGET ${T_PROGRAM}.stdabi)
        continue()
      endif()
      math(EXPR job_timeout "${T_TIMEOUT} - 5")
      set(cmd $<TARGET_FILE:sirun> --timeout ${job_timeout} -n ${T_NPROCS}
              $<TARGET_FILE:${T_PROGRAM}.stdabi> ${T_ARGS})
    elseif(launcher STREQUAL "mpich")
      if(NOT SI_HYDRA OR NOT TARGET ${T_PROGRAM}.mpich)
        continue()
      endif()
      set(cmd ${SI_HYDRA} -n ${T_NPROCS} $<TARGET_FILE:${T_PROGRAM}.mpich> ${T_ARGS})
    elseif(launcher STREQUAL "openmpi")
      if(NOT SI_OPENMPI_RUN OR NOT TARGET ${T_PROGRAM}.openmpi)
        continue()
      endif()
      # Open MPI refuses root unless told twice (CI runs as root).
      # Its PMIx client sometimes fails to reach mpirun's server on a loaded
      # machine before the program starts: that launch is run once more.
      set(run_options --relaunch-on "OPAL ERROR: Unreachable")
      set(cmd env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
              ${SI_OPENMPI_RUN} -n ${T_NPROCS} --oversubscribe
              $<TARGET_FILE:${T_PROGRAM}.openmpi> ${T_ARGS})
    else()
      message(FATAL_ERROR
              "si_add_mpi_test: unknown launcher '${launcher}' (sirun, hydra, abi, stdabi, mpich, openmpi)")
    endif()
    set(test_name ${launcher}.${T_NAME})
    add_test(NAME ${test_name} COMMAND ${SI_RUN_MPI_TEST} ${run_options} -- ${cmd})
    set_tests_properties(${test_name} PROPERTIES
      TIMEOUT ${T_TIMEOUT}
      LABELS "${T_LABELS}"
      FAIL_REGULAR_EXPRESSION "ERROR: AddressSanitizer|runtime error:|ThreadSanitizer"
      ENVIRONMENT "${T_ENV}")
  endforeach()
endfunction()

# Parses one line of a testlist ("<program> <nprocs> [env=K=V ...] [args=a,b]",
# '#' starts a comment). Sets in the caller TL_PROGRAM, TL_NPROCS, TL_ENV,
# TL_ARGS and TL_SUFFIX (".eager_limit_1k": what tells the line's tests apart);
# TL_PROGRAM is empty for a blank or comment line.
function(si_parse_testlist_line file line)
  string(REGEX REPLACE "#.*" "" line "${line}")
  string(STRIP "${line}" line)
  set(program "")
  set(nprocs "")
  set(env "")
  set(args "")
  set(suffix "")
  if(NOT line STREQUAL "")
    separate_arguments(words UNIX_COMMAND "${line}")
    list(POP_FRONT words program nprocs)
    foreach(word IN LISTS words)
      if(word MATCHES "^env=(.*)$")
        list(APPEND env "${CMAKE_MATCH_1}")
        string(REGEX REPLACE "^SI_([A-Z_]+)=(.*)$" "\\1_\\2" tag "${CMAKE_MATCH_1}")
        string(TOLOWER "${tag}" tag)
        string(APPEND suffix ".${tag}")
      elseif(word MATCHES "^args=(.*)$")
        string(REPLACE "," ";" more "${CMAKE_MATCH_1}")
        list(APPEND args ${more})
        string(REPLACE "," "_" tag "${CMAKE_MATCH_1}")
        string(APPEND suffix ".${tag}")
      else()
        message(FATAL_ERROR "${file}: cannot read '${word}' in '${line}'")
      endif()
    endforeach()
  endif()
  set(TL_PROGRAM "${program}" PARENT_SCOPE)
  set(TL_NPROCS "${nprocs}" PARENT_SCOPE)
  set(TL_ENV "${env}" PARENT_SCOPE)
  set(TL_ARGS "${args}" PARENT_SCOPE)
  set(TL_SUFFIX "${suffix}" PARENT_SCOPE)
endfunction()

# Reads a testlist (si_parse_testlist_line) and registers each line for every
# progression mode, and unless NO_REFERENCE once against MPICH, in modes
# none and smart_h1 as the MPICH build on this runtime (launcher abi), and in
# mode smart_h1 as the standard-ABI build where there is one (launcher stdabi).
# A mode is an SI_PROGRESS value, optionally with a helper count: smart_h2
# runs SI_PROGRESS=smart SI_HELPERS=2. Runs in modes thread, interrupt and
# smart_h1 also carry the label tsan: a background thread is where threads of
# one process race (smart_h2 adds no thread of its own, only a helper process).
function(si_add_testlist file)
  cmake_parse_arguments(L "NO_REFERENCE" "" "MODES;LAUNCHERS" ${ARGN})
  file(STRINGS ${file} lines)
  set(referenced "")
  foreach(line IN LISTS lines)
    si_parse_testlist_line(${file} "${line}")
    if(TL_PROGRAM STREQUAL "")
      continue()
    endif()
    set(program ${TL_PROGRAM})
    set(nprocs ${TL_NPROCS})
    set(env ${TL_ENV})
    set(args ${TL_ARGS})
    set(suffix ${TL_SUFFIX})
    foreach(mode IN LISTS L_MODES)
      set(labels integration)
      if(mode STREQUAL "thread" OR mode STREQUAL "interrupt" OR mode STREQUAL "pef" OR
         mode STREQUAL "smart_h1")
        list(APPEND labels tsan)
      endif()
      _si_mode_env(mode_env ${mode})
      si_add_mpi_test(NAME ${program}.np${nprocs}${suffix}.${mode} PROGRAM ${program}
                      NPROCS ${nprocs} ARGS ${args} ENV ${env} ${mode_env}
                      LAUNCHERS ${L_LAUNCHERS} LABELS ${labels})
    endforeach()
    # The MPICH reference run does not depend on our progression modes, nor
    # (NO_REFERENCE) on the runtime's SI_* knobs a list is about.
    if(L_NO_REFERENCE)
      continue()
    endif()
    # MPICH ignores the SI_* settings of env=: lines that differ only there
    # (coll_shm at 4 ranks with SI_NODE_SIZE=2, say) have one reference run.
    string(JOIN "," reference "${program}" "${nprocs}" ${args})
    if(NOT reference IN_LIST referenced)
      list(APPEND referenced "${reference}")
      si_add_mpi_test(NAME ${program}.np${nprocs}${suffix} PROGRAM ${program}
                      NPROCS ${nprocs} ARGS ${args} LAUNCHERS mpich LABELS integration mpich)
    endif()
    # The same MPICH-built binary on this runtime through the MPICH ABI.
    foreach(mode IN ITEMS none smart_h1)
      _si_mode_env(mode_env ${mode})
      si_add_mpi_test(NAME ${program}.np${nprocs}${suffix}.${mode} PROGRAM ${program}
                      NPROCS ${nprocs} ARGS ${args} ENV ${env} ${mode_env}
                      LAUNCHERS abi LABELS integration abi)
    endforeach()
    # Built against the standard ABI (STANDARD_ABI), in one mode: what it
    # tests is the translation, which no mode changes.
    _si_mode_env(mode_env smart_h1)
    si_add_mpi_test(NAME ${program}.np${nprocs}${suffix}.smart_h1 PROGRAM ${program}
                    NPROCS ${nprocs} ARGS ${args} ENV ${env} ${mode_env}
                    LAUNCHERS stdabi LABELS integration stdabi)
  endforeach()
endfunction()

# The SI_* settings of a progression mode of si_add_testlist.
function(_si_mode_env out mode)
  if(mode MATCHES "^ghost_g([0-9]+)$")
    set(env SI_PROGRESS=ghost SI_GHOSTS=${CMAKE_MATCH_1})
  elseif(mode MATCHES "^(.+)_h([0-9]+)$")
    set(env SI_PROGRESS=${CMAKE_MATCH_1} SI_HELPERS=${CMAKE_MATCH_2})
  elseif(mode STREQUAL "pef")
    # The watchdog's handler under every test's traffic: on shared memory
    # it reads only as in the paper (by default it leaves that to MPI).
    set(env SI_PROGRESS=pef SI_PEF_SHARED_MEMORY=copy)
  else()
    set(env SI_PROGRESS=${mode})
  endif()
  set(${out} ${env} PARENT_SCOPE)
endfunction()

