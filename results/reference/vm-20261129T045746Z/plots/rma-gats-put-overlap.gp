# Draws rma-gats-put-overlap.png and rma-gats-put-overlap.svg from rma-gats-put-overlap.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'rma-gats-put-overlap.png'
set title 'MPI_Put in a GATS epoch, target late: epoch / work (study rma)'
set xlabel 'message size'
set ylabel 'epoch time / work (1 = all of the transfer hidden)'
set grid
set key outside right top
set logscale x 2
set xtics ('64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576)
plot 'rma-gats-put-overlap.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich', \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich-async', \
     1 with lines dt 2 lw 2 lc rgb 'gray40' title 'ideal'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'rma-gats-put-overlap.svg'
replot
unset output
