# ctest -L bench-smoke: sibench run over harness/profiles/smoke.toml into OUT_DIR,
# then checks that the run directory holds results.csv with rows, runs.csv,
# summary.txt, at least one PNG, the trace report of the traced study and the
# ping-pong study's rounds (runs, figures, summary.csv, table), the multithreaded
# latency study's table and figure, the collectives study's rows, figures and tables.
#   cmake -DSIBENCH=... -DBUILD_DIR=... -DPROFILE=... -DOUT_DIR=... -P smoke.cmake
foreach(var IN ITEMS SIBENCH BUILD_DIR PROFILE OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "smoke.cmake: -D${var}=... missing")
  endif()
endforeach()

file(REMOVE_RECURSE ${OUT_DIR})
# --strict: here every run must succeed.
execute_process(COMMAND ${SIBENCH} run --profile ${PROFILE} --build ${BUILD_DIR}
                        --run-dir ${OUT_DIR} --strict
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "sibench run exited with ${status}; see ${OUT_DIR}/runs.csv and ${OUT_DIR}/logs")
endif()

foreach(file IN ITEMS results.csv runs.csv summary.txt machine.txt profile.toml)
  if(NOT EXISTS ${OUT_DIR}/${file})
    message(FATAL_ERROR "sibench wrote no ${OUT_DIR}/${file}")
  endif()
endforeach()
file(STRINGS ${OUT_DIR}/results.csv rows REGEX "^p2p,")
list(LENGTH rows row_count)
if(row_count LESS 10)
  message(FATAL_ERROR "${OUT_DIR}/results.csv holds ${row_count} rows")
endif()
# The application study: NAS SP's time rows and its figure.
file(STRINGS ${OUT_DIR}/results.csv sp_rows REGEX "^nas,sp\\.S,.*,time_max,")
list(LENGTH sp_rows sp_row_count)
if(sp_row_count LESS 3)
  message(FATAL_ERROR "${OUT_DIR}/results.csv holds ${sp_row_count} SP time_max rows, expected 3")
endif()
if(NOT EXISTS ${OUT_DIR}/plots/sp-S.png)
  message(FATAL_ERROR "no ${OUT_DIR}/plots/sp-S.png")
endif()
# The Google Benchmark study: its JSON as rows.
file(STRINGS ${OUT_DIR}/results.csv gbench_rows REGEX "^gbench,progress_idle/ranks:2,.*,time_median,")
if(NOT gbench_rows)
  message(FATAL_ERROR "${OUT_DIR}/results.csv holds no runtime_costs row (progress_idle/ranks:2)")
endif()
# The traced study: its report (stage table, timeline) from the SI_TRACE files.
set(trace_report ${OUT_DIR}/plots/trace-overlap-trace.simpi-smart-h1.p1)
foreach(file IN ITEMS stages.txt transfers.csv timeline.png stages.png)
  if(NOT EXISTS ${trace_report}/${file})
    message(FATAL_ERROR "no ${trace_report}/${file}")
  endif()
endforeach()
file(STRINGS ${trace_report}/stages.txt stage_lines REGEX "^262144 bytes: [1-9]")
if(NOT stage_lines)
  message(FATAL_ERROR "${trace_report}/stages.txt names no 256 KiB transfer")
endif()
# The ping-pong study in 2 rounds: run ids per round, its figures (with error bars),
# summary.csv with the spread, and the summary's table with the ratio to MPICH.
file(STRINGS ${OUT_DIR}/runs.csv round_runs REGEX "^pingpong\\.simpi-none\\.p1\\.round[12],")
list(LENGTH round_runs round_run_count)
if(NOT round_run_count EQUAL 2)
  message(FATAL_ERROR "${OUT_DIR}/runs.csv lists ${round_run_count} rounds of pingpong.simpi-none")
endif()
foreach(measurement IN ITEMS latency bandwidth bibandwidth)
  if(NOT EXISTS ${OUT_DIR}/plots/pingpong-${measurement}.png)
    message(FATAL_ERROR "no ${OUT_DIR}/plots/pingpong-${measurement}.png")
  endif()
endforeach()
file(READ ${OUT_DIR}/plots/pingpong-bibandwidth.gp bibw_script)
if(NOT bibw_script MATCHES "yerrorlines")
  message(FATAL_ERROR "pingpong-bibandwidth.gp draws no min..max over the rounds")
endif()
file(STRINGS ${OUT_DIR}/summary.csv spread_rows REGEX "^pingpong,pingpong,mpich,.*,bibandwidth_median,MB/s,2,")
if(NOT spread_rows)
  message(FATAL_ERROR "${OUT_DIR}/summary.csv has no 2-round bibandwidth_median row of mpich")
endif()
# The multithreaded latency study, drawn and tabulated like ping-pong.
if(NOT EXISTS ${OUT_DIR}/plots/latency-threads-latency.png)
  message(FATAL_ERROR "no ${OUT_DIR}/plots/latency-threads-latency.png")
endif()
# The nonblocking-collective study on 4 ranks: its rows, a figure per collective and
# measurement, and its summary tables.
file(STRINGS ${OUT_DIR}/results.csv coll_rows REGEX "^collectives,coll_overlap,.*,overlap_ialltoall_100_median,")
list(LENGTH coll_rows coll_row_count)
if(coll_row_count LESS 6)
  message(FATAL_ERROR "${OUT_DIR}/results.csv holds ${coll_row_count} overlap_ialltoall_100_median rows, expected 6")
endif()
foreach(figure IN ITEMS collectives-ibcast-overlap collectives-ibcast-latency
                        collectives-ialltoall-overlap collectives-ialltoall-latency)
  if(NOT EXISTS ${OUT_DIR}/plots/${figure}.png)
    message(FATAL_ERROR "no ${OUT_DIR}/plots/${figure}.png")
  endif()
endforeach()
file(STRINGS ${OUT_DIR}/summary.txt coll_table REGEX "^collectives \\(4 ranks\\): overlap")
if(NOT coll_table)
  message(FATAL_ERROR "${OUT_DIR}/summary.txt has no table of the collectives study")
endif()
file(GLOB pngs ${OUT_DIR}/plots/*.png)
if(NOT pngs)
  message(FATAL_ERROR "no PNG in ${OUT_DIR}/plots (gnuplot-nox installed?)")
endif()
file(READ ${OUT_DIR}/summary.txt summary)
if(NOT summary MATCHES "simpi-smart-h1" OR NOT summary MATCHES "speed-up"
   OR NOT summary MATCHES "pingpong bidirectional bandwidth" OR NOT summary MATCHES "none/mpich"
   OR NOT summary MATCHES "latency_threads latency")
  message(FATAL_ERROR "summary.txt lacks simpi-smart-h1, the speed-up or the ping-pong tables:\n${summary}")
endif()
message(STATUS "sibench smoke: ${row_count} rows, figures: ${pngs}")
