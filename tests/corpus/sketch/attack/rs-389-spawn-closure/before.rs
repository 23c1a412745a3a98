use std::thread;

fn main() {
    let h = thread::spawn(move || {
        let v = work();
        send(v);
    });
    h.join().unwrap();
}
