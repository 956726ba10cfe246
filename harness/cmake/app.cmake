# ctest -R sibench.app: `sibench app` on NAS SP's MPICH build (build/bin/sp.mpich, a
# binary made by mpicc.mpich) in 2 rounds: this runtime's modes through the MPICH ABI
# and MPICH itself run it, the native simpi-none cannot (skipped, naming the build);
# checks the rows (wall time, the Mop/s read from the output), the figure, the
# summary's speed-up and the counters table.
#   cmake -DSIBENCH=... -DBUILD_DIR=... -DOUT_DIR=... -P app.cmake
foreach(var IN ITEMS SIBENCH BUILD_DIR OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "app.cmake: -D${var}=... missing")
  endif()
endforeach()

file(REMOVE_RECURSE ${OUT_DIR})
execute_process(COMMAND ${SIBENCH} app --build ${BUILD_DIR} --run-dir ${OUT_DIR} --ranks 4
                        --rounds 2 --allow-missing --strict
                        --configs simpi-none,simpi-none@mpich-abi,simpi-smart@mpich-abi,mpich
                        --metric "Mop/s total += +([0-9.]+)" --metric-unit Mop/s
                        -- ${BUILD_DIR}/bin/sp.mpich --class S
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "sibench app exited with ${status}; see ${OUT_DIR}/runs.csv and ${OUT_DIR}/logs")
endif()

file(STRINGS ${OUT_DIR}/results.csv wall_rows REGEX "^app,sp\\.mpich,.*,time_wall,")
file(STRINGS ${OUT_DIR}/results.csv merit_rows REGEX "^app,sp\\.mpich,.*,rate_merit,[0-9.]+,Mop/s,")
list(LENGTH wall_rows wall_count)
list(LENGTH merit_rows merit_count)
if(NOT wall_count EQUAL 6 OR NOT merit_count EQUAL 6)
  message(FATAL_ERROR "${OUT_DIR}/results.csv: ${wall_count} time_wall and ${merit_count} rate_merit rows, expected 6 each")
endif()
file(STRINGS ${OUT_DIR}/runs.csv skipped REGEX "^sp_mpich\\.simpi-none\\.r4\\.round1,.*skipped.*MPICH ABI")
if(NOT skipped)
  message(FATAL_ERROR "${OUT_DIR}/runs.csv: the native simpi-none run is not skipped for the MPICH build")
endif()
if(NOT EXISTS ${OUT_DIR}/plots/sp_mpich.png)
  message(FATAL_ERROR "no ${OUT_DIR}/plots/sp_mpich.png")
endif()
file(READ ${OUT_DIR}/summary.txt summary)
if(NOT summary MATCHES "simpi-smart-h1@mpich-abi +[0-9.]+ +[0-9.]+\\.\\.[0-9.]+ +[0-9.]+ Mop/s +[0-9.]+x"
   OR NOT summary MATCHES "Progress in the background"
   OR NOT summary MATCHES "sp_mpich +simpi-smart-h1@mpich-abi +2 ")
  message(FATAL_ERROR "summary.txt lacks the speed-up row or the counters table:\n${summary}")
endif()
message(STATUS "sibench app: ${wall_count} runs with rows")
