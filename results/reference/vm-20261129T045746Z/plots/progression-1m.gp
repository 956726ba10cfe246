# Draws progression-1m.png and progression-1m.svg from progression-1m.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'progression-1m.png'
set title 'Progression at 1 MiB (1 pair)'
set xlabel 'T_syn / T_lat(simpi-none)'
set ylabel 'arrival time (us), median'
set grid
set key outside right top
plot 'progression-1m.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-thread', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-interrupt', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'simpi-pef', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 5 using 1:2 with linespoints lw 2 pt 7 title 'simpi-ghost', \
     '' index 6 using 1:2 with linespoints lw 2 pt 7 title 'mpich', \
     '' index 7 using 1:2 with linespoints lw 2 pt 7 title 'mpich-async', \
     '' index 8 using 1:2 with linespoints lw 2 pt 7 title 'openmpi', \
     '' index 9 using 1:2 with linespoints lw 2 pt 7 title 'openmpi-async', \
     47.0012 with lines dt 2 lw 2 lc rgb 'gray40' title 'T_lat(simpi-none)'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'progression-1m.svg'
replot
unset output
