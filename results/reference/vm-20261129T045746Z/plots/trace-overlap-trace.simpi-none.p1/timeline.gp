set terminal pngcairo noenhanced size 1100,510 font 'sans,9'
set output 'timeline.png'
set title 'Rendezvous transfers of 1048576 bytes: receiver computing (thin bar), data moving (thick bar on the lane that moves it)'
set xlabel 'microseconds after the RTS left'
set ytics ("#1 receiver" 0, "interrupt thread" 1, "helper / blocked rank" 2, "sender" 3, "#2 receiver" 5, "interrupt thread" 6, "helper / blocked rank" 7, "sender" 8, "#3 receiver" 10, "interrupt thread" 11, "helper / blocked rank" 12, "sender" 13)
set yrange [-1:15]
set grid x
unset key
plot 'timeline.dat' index 0 using 1:2:3:(0) with vectors nohead lw 2 lc rgb '#7f8c8d', \
     'timeline.dat' index 1 using 1:2:3:(0) with vectors nohead lw 8 lc rgb '#4a7ab0', \
     'timeline.dat' index 2 using 1:2 with points pt 7 ps 1 lc rgb '#c0392b', \
     'timeline.dat' index 2 using 1:4:3 with labels font 'sans,8'
