# Helpers shared by tests/, microbench/ and apps/.
#
#   si_add_unit_test(<name> SOURCES ... LIBS ... [LABELS ...])
#       GoogleTest executable, every test case registered with CTest (label unit,
#       or unit-tsan with LABELS tsan: race-prone code for the ThreadSanitizer run).
#   si_add_mpi_program(<name> SOURCES ... [LIBS ...])
#       Builds one MPI source twice: <name> against this runtime and, when
#       Debian's MPICH is installed, <name>.mpich against MPICH. A library in
#       LIBS that has an MPICH twin (si_add_mpi_library) is replaced by the twin
#       in <name>.mpich.
#   si_add_mpi_library(<name> SOURCES ... [LIBS ...])
#       A static library written against mpi.h, built twice the same way:
#       <name> (linking this runtime) and <name>.mpich (linking MPICH).
#   si_add_mpi_test(NAME <test> PROGRAM <prog> NPROCS <n> [ARGS ...] [ENV K=V ...]
#                   [LAUNCHERS sirun hydra mpich] [TIMEOUT s] [LABELS ...])
#       One CTest test per launcher: sirun (this runtime under the project's
#       launcher), hydra (this runtime under mpiexec.hydra) and mpich (the
#       MPICH build under mpiexec.hydra, the reference). A test passes when the
#       launcher exits 0 and the output has the line "No Errors", which rank 0
#       prints after MPI_Finalize (SI_RUN_MPI_TEST checks both).
#   SI_RUN_MPI_TEST
#       tests/run-mpi-test.sh: put it in front of any other multi-process test
#       command; CTest's PASS_REGULAR_EXPRESSION would ignore the exit status.

find_package(GTest REQUIRED)
include(GoogleTest)
# The <name>.mpich twins; the sanitizer builds turn them off (their tests are not run there).
option(SI_WITH_MPICH "Also build every MPI program against Debian's MPICH" ON)
if(SI_WITH_MPICH)
  pkg_check_modules(MPICH IMPORTED_TARGET mpich)
endif()
find_program(SI_HYDRA mpiexec.hydra)

# Tiers this configuration cannot register, one line each ("<tier>: why");
# tests/run-tests.sh reports them and, under SI_TEST_NO_SKIP=1, fails.
set(SI_MISSING_TIERS_FILE ${PROJECT_BINARY_DIR}/missing-test-tiers.txt)
file(WRITE ${SI_MISSING_TIERS_FILE} "")
if(SI_WITH_MPICH AND NOT MPICH_FOUND)
  file(APPEND ${SI_MISSING_TIERS_FILE} "mpich: pkg-config finds no mpich (Debian package "
       "libmpich-dev): no .mpich twins, no mpich.* reference tests\n")
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

# Sets <out> to <libs> with every library that has an MPICH twin replaced by it, so
# that nothing built against this runtime's mpi.h ends up in an MPICH program.
function(_si_mpich_twins out)
  set(libs "")
  foreach(lib IN LISTS ARGN)
    if(TARGET ${lib}.mpich)
      list(APPEND libs ${lib}.mpich)
    else()
      list(APPEND libs ${lib})
    endif()
  endforeach()
  set(${out} ${libs} PARENT_SCOPE)
endfunction()

function(si_add_mpi_program name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${P_SOURCES})
  target_link_libraries(${name} PRIVATE simpi ${P_LIBS} si_warnings)
  if(MPICH_FOUND)
    _si_mpich_twins(mpich_libs ${P_LIBS})
    add_executable(${name}.mpich ${P_SOURCES})
    target_link_libraries(${name}.mpich PRIVATE PkgConfig::MPICH ${mpich_libs} si_warnings)
  endif()
endfunction()

function(si_add_mpi_library name)
  cmake_parse_arguments(L "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_link_libraries(${name} PUBLIC simpi ${L_LIBS} PRIVATE si_warnings)
  if(MPICH_FOUND)
    _si_mpich_twins(mpich_libs ${L_LIBS})
    add_library(${name}.mpich STATIC ${L_SOURCES})
    target_link_libraries(${name}.mpich PUBLIC PkgConfig::MPICH ${mpich_libs} PRIVATE si_warnings)
  endif()
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
  foreach(launcher IN LISTS T_LAUNCHERS)
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
    elseif(launcher STREQUAL "mpich")
      if(NOT SI_HYDRA OR NOT TARGET ${T_PROGRAM}.mpich)
        continue()
      endif()
      set(cmd ${SI_HYDRA} -n ${T_NPROCS} $<TARGET_FILE:${T_PROGRAM}.mpich> ${T_ARGS})
    else()
      message(FATAL_ERROR "si_add_mpi_test: unknown launcher '${launcher}' (sirun, hydra, mpich)")
    endif()
    set(test_name ${launcher}.${T_NAME})
    add_test(NAME ${test_name} COMMAND ${SI_RUN_MPI_TEST} -- ${cmd})
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
# progression mode.
# A mode is an SI_PROGRESS value, optionally with a helper count: smart_h2
# runs SI_PROGRESS=smart SI_HELPERS=2. Runs in modes thread and smart_h1
# also carry the label tsan: a background thread is where threads of one
# process race (smart_h2 adds no thread of its own, only a helper process).
function(si_add_testlist file)
  cmake_parse_arguments(L "" "" "MODES;LAUNCHERS" ${ARGN})
  file(STRINGS ${file} lines)
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
      if(mode STREQUAL "thread" OR mode STREQUAL "smart_h1")
        list(APPEND labels tsan)
      endif()
      if(mode MATCHES "^(.+)_h([0-9]+)$")
        set(mode_env SI_PROGRESS=${CMAKE_MATCH_1} SI_HELPERS=${CMAKE_MATCH_2})
      else()
        set(mode_env SI_PROGRESS=${mode})
      endif()
      si_add_mpi_test(NAME ${program}.np${nprocs}${suffix}.${mode} PROGRAM ${program}
                      NPROCS ${nprocs} ARGS ${args} ENV ${env} ${mode_env}
                      LAUNCHERS ${L_LAUNCHERS} LABELS ${labels})
    endforeach()
    # The MPICH reference run does not depend on our progression modes.
    si_add_mpi_test(NAME ${program}.np${nprocs}${suffix} PROGRAM ${program}
                    NPROCS ${nprocs} ARGS ${args} LAUNCHERS mpich LABELS integration mpich)
  endforeach()
endfunction()
