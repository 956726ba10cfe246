# Draws scalability-1m.png and scalability-1m.svg from scalability-1m.dat (written by sibench).
set terminal pngcairo size 960,600 noenhanced font 'sans,11'
set output 'scalability-1m.png'
set title 'Scalability: overlap at 1 MiB'
set xlabel 'pairs (ranks / 2)'
set ylabel 'overlap (%), median'
set grid
set key outside right top
plot 'scalability-1m.dat' index 0 using 1:2 with linespoints lw 2 pt 7 title 'simpi-none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 title 'simpi-smart-h1', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 title 'simpi-ghost', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 title 'mpich'
set terminal svg size 960,600 noenhanced font 'sans,11' background '#ffffff'
set output 'scalability-1m.svg'
replot
unset output
