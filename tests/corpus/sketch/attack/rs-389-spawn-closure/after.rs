use std::thread;

fn main() {
    let h = thread::spawn(move || {
        let v = work();
        send(v);
        done();
    });
    h.join().unwrap();
}
