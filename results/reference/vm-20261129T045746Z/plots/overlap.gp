# Draws overlap.png and overlap.svg from overlap.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'overlap.png'
set title 'Overlap (overlap, 1 pair)'
set xlabel 'message size'
set ylabel 'overlap (%), median, min..max over rounds'
set grid
set key outside right top
set logscale x 2
set xtics ('16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304)
plot 'overlap.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-interrupt', \
     '' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-pef', \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 5 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-ghost', \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-ghost-dup', \
     '' index 7 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'simpi-ghost-tag', \
     '' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich', \
     '' index 9 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'mpich-async', \
     '' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'openmpi', \
     '' index 11 using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'openmpi-async'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'overlap.svg'
replot
unset output
