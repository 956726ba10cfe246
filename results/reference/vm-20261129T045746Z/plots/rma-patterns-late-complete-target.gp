# Draws rma-patterns-late-complete-target.png and rma-patterns-late-complete-target.svg from rma-patterns-late-complete-target.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'rma-patterns-late-complete-target.png'
set title 'Late Complete: the target''s exposure epoch (the origin computes before completing) (study rma-patterns)'
set xlabel 'message size'
set ylabel 'completion time from the delayer''s start (us), median'
set grid
set key outside right top
set logscale x 2
set xtics ('256 KiB' 262144, '1 MiB' 1048576)
plot 'rma-patterns-late-complete-target.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none blocking', \
     '' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-thread blocking', \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-smart-h1 blocking', \
     '' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich blocking', \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'openmpi blocking', \
     '' index 5 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none nonblocking', \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-thread nonblocking', \
     '' index 7 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-smart-h1 nonblocking', \
     1006.07 with lines dt 2 lw 2 lc rgb 'gray40' title 'the delay'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'rma-patterns-late-complete-target.svg'
replot
unset output
