# ctest sibench.gate: the regression gate as CI runs it. `sibench run` over
# harness/profiles/gate.toml into OUT_DIR, then `sibench compare --baseline
# simpi-none,mpich` against REFERENCE with TOLERANCE. On a shared machine one
# unlucky run can look like a regression: a failing gate runs the profile once
# more, and only a regression seen twice fails the test.
#   cmake -DSIBENCH=... -DBUILD_DIR=... -DPROFILE=... -DOUT_DIR=... -DREFERENCE=...
#         -DTOLERANCE=... -P gate.cmake
foreach(var IN ITEMS SIBENCH BUILD_DIR PROFILE OUT_DIR REFERENCE TOLERANCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gate.cmake: -D${var}=... missing")
  endif()
endforeach()

foreach(attempt 1 2)
  set(run_dir ${OUT_DIR}/attempt${attempt})
  file(REMOVE_RECURSE ${run_dir})
  execute_process(COMMAND ${SIBENCH} run --profile ${PROFILE} --build ${BUILD_DIR}
                          --run-dir ${run_dir} --strict --no-plot
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "sibench run exited with ${status}; see ${run_dir}/runs.csv and ${run_dir}/logs")
  endif()
  execute_process(COMMAND ${SIBENCH} compare --reference ${REFERENCE}
                          --current ${run_dir}/results.csv --baseline simpi-none,mpich
                          --tolerance ${TOLERANCE} --fail-on-missing
                  RESULT_VARIABLE status)
  if(status EQUAL 0)
    message(STATUS "sibench gate: passed at attempt ${attempt}")
    return()
  endif()
  message(STATUS "sibench gate: attempt ${attempt} failed (status ${status})")
endforeach()
message(FATAL_ERROR "sibench gate: a regression in two runs against ${REFERENCE}")
